/**
 * The service proxy benchmark: N services of 10 endpoints (1k, 5k, 10k, 20k)
 * in every mode side by side, each applied to a real kernel in its own
 * network namespaces where the kernel allows (iptables on the legacy and nft
 * backends, nftables; IPVS only where ip_vs exists, else its rule computation
 * alone). Per mode: rule count, initial sync, full resync, one-service-change
 * sync, bytes handed to the kernel, CPU; then real TCP connects (fresh
 * 5-tuples) to the first and last service in rule order. Needs root.
 *
 *   node dist/bench/proxy/main.js [--quick] [--sizes 1000,5000,10000,20000]
 *     [--samples 1000] [--modes iptables-legacy,iptables-nft,nftables,ipvs] [--max-sync-s 120] [--changes 11]
 *
 * The one-service change row is the median of --changes syncs, each changing a different service.
 */
import { cpus, loadavg, release, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { runBenchmark } from '../apiserver/processes.js';
import { measureIpvsRender, measureMode, type ModeResult, type ModeSpec } from './measure.js';
import { renderTable } from './report.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    samples: { type: 'string' },
    modes: { type: 'string', default: 'iptables-legacy,iptables-nft,nftables,ipvs' },
    'max-sync-s': { type: 'string', default: '120' },
    changes: { type: 'string' },
  },
});

const quick = args.quick === true;
const SIZES = (args.sizes ?? (quick ? '100' : '1000,5000,10000,20000')).split(',').map(Number);
const SAMPLES = Number(args.samples ?? (quick ? 50 : 1000));
const MAX_SYNC_MS = Number(args['max-sync-s']) * 1000;
/** One-service changes per point; the table shows the median. */
const CHANGES = Number(args.changes ?? (quick ? 3 : 11));
const SPECS: Record<string, ModeSpec> = {
  'iptables-legacy': { label: 'iptables-legacy', mode: 'iptables', backend: 'legacy' },
  'iptables-nft': { label: 'iptables-nft', mode: 'iptables', backend: 'nft' },
  nftables: { label: 'nftables', mode: 'nftables', backend: 'auto' },
  ipvs: { label: 'ipvs', mode: 'ipvs', backend: 'legacy' },
};
const MODES = args.modes!.split(',').map((m) => {
  const s = SPECS[m];
  if (s === undefined) throw new Error(`unknown mode ${m}`);
  return s;
});

const log = (msg: string): void =>
  void process.stderr.write(`[bench/proxy] ${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

await runBenchmark('bench/proxy', log, async () => {
  process.stdout.write(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, kernel ${release()}, node ${process.version}\n`,
  );
  process.stdout.write(
    `load average before: ${load()}; sizes ${SIZES.join(', ')}; ${SAMPLES} connects per point; one-service change: median of ${CHANGES}\n\n`,
  );
  // A mode whose sync took longer than --max-sync-s at one size is not run at larger ones: that is the finding.
  const tooSlow = new Map<string, string>();
  for (const n of SIZES) {
    const results: ModeResult[] = [];
    for (const spec of MODES) {
      const skip = tooSlow.get(spec.label);
      if (skip !== undefined) {
        results.push({ mode: spec.label, n, kernel: skip });
        continue;
      }
      const r = await measureMode(spec, n, SAMPLES, MAX_SYNC_MS, log, CHANGES);
      if (r.kernel !== undefined && spec.mode === 'ipvs') {
        const ipvs = await measureIpvsRender(n);
        results.push({
          mode: 'ipvs (compute only)',
          n,
          kernel: r.kernel,
          initial: ipvs,
          resync: ipvs.full,
          change: ipvs.change,
        });
      } else results.push(r);
      const worst = Math.max(r.initial?.wallMs ?? 0, r.resync?.wallMs ?? 0);
      if (r.timedOut === true || worst > MAX_SYNC_MS / 2)
        tooSlow.set(
          spec.label,
          `skipped: at ${n} services a sync took ${r.timedOut === true ? 'over' : ''} ${((r.timedOut === true ? MAX_SYNC_MS : worst) / 1000).toFixed(0)} s, so larger sizes would exceed --max-sync-s`,
        );
    }
    process.stdout.write(renderTable(n, results));
    process.stdout.write(`load average after ${n}: ${load()}\n\n`);
  }
});
