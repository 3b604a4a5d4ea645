/**
 * The long robustness run, on its own (not in `npm test`):
 *
 *   npm run test:robustness -- [--seeds 200] [--from 1] [--backend sqlite|etcd|both] [--duration-ms 3000]
 *
 * Prints each seed, its fault and its verdict; a failing seed replays with `--from <seed> --seeds 1`.
 * Exits 1 when any seed has a history violation.
 */
import { startEtcd, type EtcdProcess } from '../../src/storage/testing/etcd_process.js';
import { runSeed } from './run.js';

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : dflt;
};
const seeds = Number(arg('seeds', '10'));
const from = Number(arg('from', '1'));
const backend = arg('backend', 'both');
const durationMs = Number(arg('duration-ms', '3000'));

let etcd: EtcdProcess | undefined;
let failed = 0;
const t0 = performance.now();
try {
  for (let seed = from; seed < from + seeds; seed++) {
    const useEtcd = backend === 'etcd' || (backend === 'both' && seed % 2 === 0);
    if (useEtcd && etcd === undefined) etcd = await startEtcd();
    const r = await runSeed({ seed, durationMs, backend: useEtcd ? { etcd: etcd!.clientUrl } : 'sqlite' });
    const acked = r.history.writes.filter((w) => w.outcome === 'ok').length;
    const verdict = r.violations.length === 0 ? 'ok' : `${r.violations.length} VIOLATIONS`;
    console.log(
      `seed ${seed} ${useEtcd ? 'etcd' : 'sqlite'} fault=${r.fault.name} restarts=${r.restarts} acked=${acked} ` +
        `reads=${r.history.reads.length} watches=${r.history.watches.length}: ${verdict}`,
    );
    for (const v of r.violations.slice(0, 20)) console.log(`  ${v}`);
    if (r.violations.length > 0) failed++;
  }
} finally {
  await etcd?.stop();
}
console.log(`${seeds} seeds, ${failed} with violations, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
process.exit(failed === 0 ? 0 : 1);
