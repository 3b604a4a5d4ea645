/**
 * `kscale lab calibrate`: fits the capacity model's coefficients by least
 * squares over lab runs of several sizes — it runs `kscale up` once per
 * --sizes entry (each report under --report-dir), or, with --from-reports,
 * reads report.json files of runs made before — and writes the
 * coefficients `kscale plan` reads.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { KSCALE } from '../lab/components.js';
import {
  SHIPPED_COEFFICIENTS,
  fitCoefficients,
  measurementsFrom,
  readCoefficients,
  reportFiles,
  writeCoefficients,
} from '../lab/capacity/index.js';
import { intArg, usageError } from './plan.js';

/** Mean bytes of one watch event when no earlier coefficients say otherwise (a pod's JSON, about 4 KiB). */
const DEFAULT_WATCH_EVENT_BYTES = 4_096;

/** Runs `kscale up` for one size; resolves with its exit code. */
async function runUp(args: string[]): Promise<number> {
  const child = spawn(process.execPath, [KSCALE, 'up', ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((ok) => child.once('exit', (code) => ok(code ?? 1)));
}

/** Adds `calibrate` under `kscale lab`. */
export function calibrateCommand(): Command {
  return new Command('calibrate')
    .description('fit the capacity model (kscale plan) from kscale up runs at a few sizes, or from existing reports')
    .option('--sizes <n,n,...>', 'node counts to run kscale up at (at least two)', '100,200,400')
    .option('--pods-per-node <n>', 'pods per node of each run', '10')
    .option('--pod-rate <n>', 'pods/s of each run', '50')
    .option('--report-dir <dir>', 'where the runs write their reports (one folder per size)', 'calibrate-reports')
    .option('--from-reports <path...>', 'fit from these report.json files or folders instead of running')
    .option('--out <file>', 'the coefficients file to write', 'coefficients.json')
    .option('--up-args <args>', 'extra kscale up flags for every run, space-separated', '')
    .action(async (o: Record<string, string | string[] | undefined>) => {
      let files: string[];
      if (o.fromReports !== undefined) {
        try {
          files = reportFiles(o.fromReports as string[]);
        } catch (err) {
          usageError((err as Error).message);
        }
      } else {
        const sizes = (o.sizes as string).split(',').map((s) => intArg('--sizes', s.trim(), 1));
        if (new Set(sizes).size < 2) usageError('--sizes needs at least two different node counts');
        const podsPerNode = intArg('--pods-per-node', o.podsPerNode as string, 0);
        const podRate = intArg('--pod-rate', o.podRate as string, 1);
        const extra = (o.upArgs as string).split(/\s+/).filter((a) => a !== '');
        files = [];
        for (const n of sizes) {
          const dir = resolve(o.reportDir as string, `nodes-${n}`);
          mkdirSync(dir, { recursive: true });
          process.stderr.write(`kscale lab calibrate: kscale up --nodes ${n} (report ${dir})\n`);
          const code = await runUp([
            '--nodes',
            String(n),
            '--pods-per-node',
            String(podsPerNode),
            '--pod-rate',
            String(podRate),
            '--report',
            dir,
            ...extra,
          ]);
          // A run that missed an SLO still measured its costs; only a run without a report is lost.
          if (code !== 0) process.stderr.write(`kscale lab calibrate: kscale up --nodes ${n} exited ${code}\n`);
          files.push(join(dir, 'report.json'));
        }
      }
      if (files.length < 2) usageError(`need at least two reports to fit, found ${files.length}`);
      let runs;
      try {
        runs = measurementsFrom(files);
      } catch (err) {
        usageError((err as Error).message);
      }
      let eventBytes = DEFAULT_WATCH_EVENT_BYTES;
      try {
        eventBytes = readCoefficients(SHIPPED_COEFFICIENTS).watchEventBytes;
      } catch {
        // no shipped file yet: the default stands
      }
      const c = fitCoefficients(runs, files, eventBytes);
      writeCoefficients(o.out as string, c);
      process.stdout.write(
        `kscale lab calibrate: ${Object.keys(c.figures).length} figures fitted from ${files.length} reports → ${o.out as string}\n`,
      );
    });
}
