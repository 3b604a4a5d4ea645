/**
 * The short robustness run in `npm test`: 10 seeded fault runs (odd seeds on the embedded store with its
 * failpoints, even seeds on a real etcd with kill -9), and the mutation runs that prove the checker catches an
 * acknowledgement before fsync, a duplicated watch event and a skipped revision. The long run is
 * `npm run test:robustness -- --seeds 200`; a failing seed replays with `--from <seed> --seeds 1`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startEtcd, type EtcdProcess } from '../../src/storage/testing/etcd_process.js';
import { SQLITE_FAILPOINTS as FP } from '../../src/storage/sqlite/wal_failpoints.js';
import { runSeed } from './run.js';

let etcd: EtcdProcess;
before(async () => {
  etcd = await startEtcd();
});
after(async () => {
  await etcd.stop();
});

const SEEDS = Number(process.env.KSCALE_ROBUSTNESS_SEEDS ?? '10');

test(`${SEEDS} seeded fault runs keep every history rule, on the embedded store and on etcd`, async (t) => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const backend = seed % 2 === 0 ? { etcd: etcd.clientUrl } : ('sqlite' as const);
    const r = await runSeed({ seed, backend });
    const acked = r.history.writes.filter((w) => w.outcome === 'ok').length;
    t.diagnostic(
      `seed ${seed} ${backend === 'sqlite' ? 'sqlite' : 'etcd'} fault=${r.fault.name} restarts=${r.restarts} acked=${acked}`,
    );
    assert.ok(r.restarts >= 1, `seed ${seed}: the fault (${r.fault.name}) took the server down`);
    assert.ok(acked > 20, `seed ${seed}: the workers got writes acknowledged (${acked})`);
    assert.deepEqual(
      r.violations,
      [],
      `seed ${seed} (${r.fault.name}) has history violations; replay it with --from ${seed}`,
    );
  }
});

test('mutation: acknowledging before the fsync that power loss drops is caught', async () => {
  // The handshake cuts the power only once a worker holds an early-acknowledged write of the cut batch, so the
  // run always has an acknowledged write the drop removed, and the checker must flag it.
  const r = await runSeed({
    seed: 250,
    backend: 'sqlite',
    mutation: `${FP.ackBeforeFsync}=100+handshake`,
    earlyAckHandshake: true,
  });
  assert.ok(r.restarts >= 1, 'the drop killed the server');
  const caught = r.violations.filter((v) => /revision \d+ reused|lost|lacks|older than acknowledged/.test(v));
  assert.ok(caught.length > 0, `the checker flags the acknowledged write the drop lost: ${r.violations.join('; ')}`);
});

test('mutation: a watch event delivered twice is caught', async () => {
  const r = await runSeed({ seed: 102, backend: 'sqlite', mutation: 'cacher/dispatch/configmaps=30+duplicate*1' });
  assert.ok(
    r.violations.some((v) => /out of order or repeated/.test(v)),
    `the checker flags the repeated event: ${r.violations.join('; ')}`,
  );
});

test('mutation: a revision the fan-out never delivers is caught', async () => {
  const r = await runSeed({ seed: 103, backend: 'sqlite', mutation: 'cacher/dispatch/configmaps=30+skip*1' });
  assert.ok(
    r.violations.some((v) => /skipped revision|ran ahead/.test(v)),
    `the checker flags the skipped revision: ${r.violations.join('; ')}`,
  );
});
