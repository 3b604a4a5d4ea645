/**
 * The fairness check of API Priority and Fairness (issue 25) against a real
 * `kscale server`: two ServiceAccounts in one small priority level, ByUser,
 * one keeping 10× as many PATCHes outstanding as the other (src/lab/fairness.ts).
 * Prints each flow's completed PATCHes (its seats) and share, their ratio, and
 * how often both were backlogged. Target: each within 20% of an equal share.
 *
 *   node dist/bench/apf/fairness.js [--heavy=30] [--light=3] [--watchers=100] [--warmup=2s] [--window=10s]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadKubeconfig, RESTClient } from '../../src/client/index.js';
import { measureFairness } from '../../src/lab/fairness.js';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'];
  }),
);
const ms = (s: string): number => Number(s.replace(/s$/, '')) * 1000;
const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'kscale-fairness-'));
const kubeconfig = join(dir, 'kubeconfig');
const server = spawn(
  process.execPath,
  [KSCALE, 'server', '--secure-port', '0', '--data-dir', join(dir, 'data'), '--write-kubeconfig', kubeconfig],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
try {
  await new Promise<void>((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`kscale server exited with ${code}`)));
    createInterface({ input: server.stdout! }).on('line', (l) => {
      if (/serving securely on/.test(l)) resolve();
    });
  });
  const admin = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0, burst: 1 });
  const r = await measureFairness(admin, {
    heavyInFlight: Number(args.get('heavy') ?? 30),
    lightInFlight: Number(args.get('light') ?? 3),
    watchers: Number(args.get('watchers') ?? 100),
    warmupMs: ms(args.get('warmup') ?? '2s'),
    windowMs: ms(args.get('window') ?? '10s'),
  });
  admin.close();
  console.log(`APF fairness: one level of ${r.seats} seats, two flows ByUser, window ${r.windowMs / 1000} s`);
  console.log(['flow'.padEnd(8), 'in flight', 'completed', 'share', '429', 'errors'].join('  '));
  for (const f of [r.heavy, r.light])
    console.log(
      [
        f.serviceAccount.padEnd(8),
        String(f.inFlight).padStart(9),
        String(f.completed).padStart(9),
        `${(f.share * 100).toFixed(1)}%`.padStart(5),
        String(f.tooManyRequests).padStart(3),
        `${f.otherErrors}${f.lastError === undefined ? '' : ` (${f.lastError})`}`.padStart(6),
      ].join('  '),
    );
  console.log(
    `heavy/light ${r.ratio.toFixed(2)}; farthest from an equal share by ${(r.deviation * 100).toFixed(1)}% (target ≤ 20%); both backlogged in ${r.bothBacklogged}/${r.samples} samples`,
  );
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
