/**
 * `kscale nodes --processes N`: this process becomes a small supervisor of N
 * fleet processes, each `kscale nodes` itself with one contiguous slice of
 * the node range (--first-index, --count) and its share of --join-rate, so
 * together they present exactly the nodes one process would while each
 * carries a fraction of the kubelets' CPU. Children keep their own control
 * endpoints, so `kscale nodes kill|revive|status` reach every one of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fleetSlices } from '../kubelet/index.js';

/** The environment variable naming a fleet process's supervisor, so the process stops when its supervisor is gone. */
export const FLEET_PARENT_ENV = 'KSCALE_FLEET_PARENT_PID';

/** What the supervisor needs from the parsed flags. */
export interface FleetProcessesOptions {
  count: number;
  processes: number;
  firstIndex: number;
  joinRate: number;
  /** The fleet's --secure-port: process i serves on port + i (0 and -1 stay as they are). */
  securePort?: number;
}

/**
 * The command line of fleet process `slice`: this command's own arguments with the slice's flags last (they win);
 * with `securePort` > 0, process `index` serves its endpoints on securePort + index.
 */
export function childArgs(
  argv: string[],
  slice: { firstIndex: number; count: number },
  joinRate: number,
  securePort?: { port: number; index: number },
): string[] {
  return [
    ...argv,
    ...(securePort === undefined
      ? []
      : ['--secure-port', String(securePort.port > 0 ? securePort.port + securePort.index : securePort.port)]),
    '--processes',
    '1',
    '--first-index',
    String(slice.firstIndex),
    '--count',
    String(slice.count),
    '--join-rate',
    String(joinRate),
  ];
}

/** Runs the fleet processes until a signal (forwarded to each) or until one of them fails. */
export function runFleetProcesses(o: FleetProcessesOptions, argv = process.argv.slice(1)): void {
  const slices = fleetSlices(o.count, o.processes, o.firstIndex);
  const [script, ...rest] = argv;
  const t0 = performance.now();
  const children: ChildProcess[] = [];
  let joining = 0;
  let registered = 0;
  let nodesRegistered = 0;
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals): void => {
    stopping = true;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
  };
  let exited = 0;
  let failed = false;
  for (const [index, slice] of slices.entries()) {
    const port = o.securePort === undefined ? undefined : { port: o.securePort, index };
    const child = spawn(
      process.execPath,
      [...process.execArgv, script!, ...childArgs(rest, slice, o.joinRate / slices.length, port)],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [FLEET_PARENT_ENV]: String(process.pid) } },
    );
    children.push(child);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      // The children's start and registration lines are summed into one line each; everything else passes through.
      if (/hollow nodes joining/.test(line)) {
        process.stdout.write(`kscale nodes [${child.pid}]: ${line.replace(/^kscale nodes: /, '')}\n`);
        if (++joining === slices.length)
          process.stdout.write(
            `kscale nodes: ${o.count} hollow nodes joining in ${slices.length} fleet processes ` +
              `(first index ${o.firstIndex}, ${slices.map((s) => s.count).join('+')})\n`,
          );
        return;
      }
      const m = /^kscale nodes: (\d+) of \d+ nodes registered/.exec(line);
      if (m !== null) {
        nodesRegistered += Number(m[1]);
        if (++registered === slices.length)
          process.stdout.write(
            `kscale nodes: ${nodesRegistered} of ${o.count} nodes registered in ${((performance.now() - t0) / 1000).toFixed(1)}s ` +
              `by ${slices.length} fleet processes\n`,
          );
        return;
      }
      process.stdout.write(`${line}\n`);
    });
    child.once('exit', (code) => {
      exited++;
      if (!stopping) {
        process.stderr.write(`kscale nodes: fleet process ${child.pid} exited with ${code}; stopping the others\n`);
        failed = true;
        stopAll('SIGTERM');
      } else if (code !== 0) failed = true;
      if (exited === slices.length) process.exit(failed ? 1 : 0);
    });
  }
  process.once('SIGINT', () => stopAll('SIGINT'));
  process.once('SIGTERM', () => stopAll('SIGTERM'));
}
