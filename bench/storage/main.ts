/**
 * The storage benchmark: the embedded SQLite store against a real etcd, side
 * by side in one run, on this machine. Prints a table of figures with the
 * targets; it is a script, not a timed test.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/storage/main.js [--quick] [--json out.json]
 *
 * --quick shrinks every size (a smoke run under a minute). Progress goes to
 * stderr, the report to stdout. Temp dirs and the etcd process are removed on
 * exit, on error and on SIGINT/SIGTERM.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Cleanup, etcdVersion, openEtcd, openSqlite, sqliteVersion, tempDir, type Backend } from './backends.js';
import { FULL, QUICK, type BenchConfig } from './config.js';
import { measureFsyncRate } from './disk.js';
import { measureList } from './list.js';
import { buildRows, formatTable, type Results } from './report.js';
import { measureStall } from './stall.js';
import { measureWatch } from './watch.js';
import { measureCas, measureCreates } from './writes.js';

const started = performance.now();
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const progress = (msg: string): void => {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`);
};

/** The machine and versions, printed above the table. */
function header(cfg: BenchConfig): string[] {
  const cpu = cpus();
  return [
    `kscale storage benchmark${cfg.quick ? ' (--quick: tiny sizes, figures are not meaningful)' : ''}`,
    `date:    ${new Date().toISOString()}`,
    `machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown cpu'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${platform()} ${release()}`,
    `node:    ${process.version}; etcd ${etcdVersion()} (single member, 127.0.0.1, temp dir); SQLite ${sqliteVersion()} (better-sqlite3)`,
    `load:    ${load()} (1, 5, 15 min) at the start; other processes on the machine skew every figure`,
    `values:  ${cfg.valueBytes} B; every case bounded by count and by time (${cfg.caseMaxMs / 1000} s per write case)`,
  ];
}

async function run(cfg: BenchConfig, cleanup: Cleanup, jsonOut: string | undefined): Promise<void> {
  console.log(header(cfg).join('\n'));
  const diskDir = tempDir(cleanup, 'disk');
  progress('disk fsync probe');
  const fsyncPerSec = measureFsyncRate(diskDir, cfg.fsyncProbeMs);

  progress('starting etcd and the embedded stores');
  const etcd = await openEtcd(cleanup);
  const full = await openSqlite(cleanup, 'full');
  const normal = await openSqlite(cleanup, 'normal');
  const each = async <T>(what: string, b: Backend, fn: (b: Backend) => Promise<T>): Promise<T> => {
    progress(`${b.name}: ${what}`);
    return fn(b);
  };

  const creates = {
    etcd: await each('creates', etcd, (b) => measureCreates(b, cfg)),
    full: await each('creates', full, (b) => measureCreates(b, cfg)),
    normal: await each('creates', normal, (b) => measureCreates(b, cfg)),
  };
  await normal.store.close(); // only the create cases use it
  const cas = {
    etcd: (await each('CAS updates', etcd, (b) => measureCas(b, cfg))).opsPerSec,
    full: (await each('CAS updates', full, (b) => measureCas(b, cfg))).opsPerSec,
  };
  const list = {
    etcd: await each('list', etcd, (b) => measureList(b, cfg)),
    full: await each('list', full, (b) => measureList(b, cfg)),
  };
  const watch = {
    etcd: await each('watch', etcd, (b) => measureWatch(b, cfg)),
    full: await each('watch', full, (b) => measureWatch(b, cfg)),
  };
  const stall = {
    etcd: await each('compaction stall', etcd, (b) => measureStall(b, cfg)),
    full: await each('compaction stall', full, (b) => measureStall(b, cfg)),
  };
  const results: Results = { fsyncPerSec, creates, cas, list, watch, stall };
  console.log('');
  console.log(formatTable(buildRows(cfg, results)));
  console.log('');
  console.log(
    '* sqlite normal: synchronous=NORMAL, lower durability (the last commits may be lost on power loss); creates only.',
  );
  console.log(
    '  etcd and sqlite full acknowledge a write only after fsync. Watch cells marked "cut off" hit the time bound.',
  );
  console.log(`load at the end: ${load()} (1, 5, 15 min)`);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (jsonOut !== undefined)
    writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), quick: cfg.quick, results }, null, 2));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf('--json');
  const jsonOut = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const cfg = args.includes('--quick') ? QUICK : FULL;
  const cleanup = new Cleanup();
  const onSignal = (sig: NodeJS.Signals): void => {
    progress(`${sig}: cleaning up`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await run(cfg, cleanup, jsonOut);
  } catch (err) {
    console.error(`storage benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  } finally {
    await cleanup.run();
  }
}

await main();
