/**
 * `kscale plan`: what a cluster of a given size will cost before it is
 * built — API requests/s per resource and verb, storage and watch traffic,
 * CPU-seconds per second and memory per component — from the capacity
 * model's coefficients (deploy/capacity/coefficients.json, or a file that
 * `kscale lab calibrate` fitted). Flags keep the kubelet's names.
 */
import { Command } from 'commander';
import { parseDuration } from '../api/index.js';
import { UsageError } from './exit.js';
import { driversFor, planTable, predict, readCoefficients, type PlanInput } from '../lab/capacity/index.js';

/** A bad command line: runMain prints it as one line, `kscale <command>: message`, and exits 2. */
export function usageError(message: string): never {
  throw new UsageError(message);
}

/** A whole number ≥ min, or a usage error naming the flag. */
export function intArg(flag: string, v: string | undefined, min: number): number {
  const n = v === undefined ? NaN : Number(v);
  if (!Number.isInteger(n) || n < min)
    usageError(`${flag} must be a whole number ≥ ${min}, got ${JSON.stringify(v ?? '')}`);
  return n;
}

function numberArg(flag: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0)
    usageError(`${flag} must be a number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
}

function durationArg(flag: string, v: string): number {
  let ms: number;
  try {
    ms = /^\d+(\.\d+)?$/.test(v) ? Number(v) * 1000 : parseDuration(v);
  } catch {
    usageError(`${flag} must be a duration such as 40s or 1m, got ${JSON.stringify(v)}`);
  }
  if (!(ms > 0)) usageError(`${flag} must be longer than 0, got ${JSON.stringify(v)}`);
  return ms / 1000;
}

/** Adds the `plan` subcommand. */
export function planCommand(): Command {
  return new Command('plan')
    .description('predict the API, storage, watch, CPU and memory cost of a cluster size from the capacity model')
    .option('--nodes <n>', 'nodes')
    .option('--pods-per-node <n>', 'pods per node')
    .option('--pod-rate <n>', 'pods created (and deleted) per second', '0')
    .option('--lease-duration <duration>', "the kubelet's node lease duration; renewed every quarter of it", '40s')
    .option('--node-status-update-frequency <duration>', 'how often each kubelet computes node status', '10s')
    .option('--coefficients <file>', 'coefficients fitted by kscale lab calibrate (default: the shipped ones)')
    .option('--json', 'print the predictions as JSON')
    .action((o: Record<string, string | boolean | undefined>) => {
      const input: PlanInput = {
        nodes: intArg('--nodes', o.nodes as string | undefined, 1),
        podsPerNode: intArg('--pods-per-node', o.podsPerNode as string | undefined, 0),
        podRate: numberArg('--pod-rate', o.podRate as string),
        leaseDurationS: durationArg('--lease-duration', o.leaseDuration as string),
        nodeStatusUpdateFrequencyS: durationArg(
          '--node-status-update-frequency',
          o.nodeStatusUpdateFrequency as string,
        ),
      };
      let coefficients;
      try {
        coefficients = readCoefficients(...(typeof o.coefficients === 'string' ? [o.coefficients] : []));
      } catch (err) {
        usageError((err as Error).message);
      }
      const predictions = predict(coefficients, driversFor(input));
      if (o.json === true)
        process.stdout.write(`${JSON.stringify({ input, fittedAt: coefficients.fittedAt, predictions }, null, 2)}\n`);
      else process.stdout.write(`${planTable(input, predictions).join('\n')}\n`);
    });
}
