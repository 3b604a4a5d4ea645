/**
 * The processes of one benchmark run: the kscale server under test, the
 * bare-HTTP reference server and the load generator, each its own process,
 * plus the temp dirs. Everything taken is registered for cleanup, which runs
 * on success, on error, on SIGINT/SIGTERM and (synchronously) on exit.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { nodeRuntimeFlags, type ProcessRole } from '../../src/lab/node_flags.js';
import type { BareStart } from './bare_server.js';
import type { Job, JobResult } from './load.js';
import type { LoadGenReply, LoadGenRequest } from './loadgen.js';

/** The compiled kscale command. */
export const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

interface Step {
  run: () => Promise<void> | void;
  /** The last resort on process exit, when nothing async can run. */
  now: () => void;
  done: boolean;
}

/** Cleanup steps, run last-in first-out, once each. */
export class Cleanup {
  private readonly steps: Step[] = [];

  constructor() {
    process.once('exit', () => {
      for (const s of this.steps.reverse()) if (!s.done) tryRun(s.now);
    });
  }

  add(run: () => Promise<void> | void, now: () => void = () => undefined): void {
    this.steps.push({ run, now, done: false });
  }

  /** Runs every pending step, even when some fail. */
  async run(): Promise<void> {
    for (const s of [...this.steps].reverse()) {
      if (s.done) continue;
      s.done = true;
      try {
        await s.run();
      } catch (err) {
        process.stderr.write(`cleanup: ${(err as Error).message}\n`);
        tryRun(s.now);
      }
    }
  }
}

function tryRun(fn: () => void): void {
  try {
    fn();
  } catch {
    // exiting anyway
  }
}

/** A temp dir removed at cleanup. */
export function tempDir(cleanup: Cleanup, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kscale-bench-${name}-`));
  const rm = (): void => rmSync(dir, { recursive: true, force: true });
  cleanup.add(rm, rm);
  return dir;
}

const alive = (p: ChildProcess): boolean => p.exitCode === null && p.signalCode === null;

/** SIGTERM, then SIGKILL after graceMs; resolves when the process is gone. */
async function stopProcess(p: ChildProcess, graceMs: number): Promise<void> {
  if (!alive(p)) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(t);
}

/** Stops `p` at cleanup: SIGTERM, then SIGKILL after graceMs (SIGKILL at once on a hurried exit). */
export function register(cleanup: Cleanup, p: ChildProcess, graceMs: number): void {
  cleanup.add(
    () => stopProcess(p, graceMs),
    () => {
      if (alive(p)) p.kill('SIGKILL');
    },
  );
}

/** CPU time (user + system) a process has used so far, in ms; undefined off Linux. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the parenthesised command name: utime and stime are 14 and 15 (1-based).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** A running server under test. */
export interface ServerProcess {
  host: string;
  port: number;
  pid: number;
  stderr(): string;
}

/**
 * The argv after `node` that runs a kscale subcommand as the lab runs it: the
 * runtime flags of its role (src/lab/node_flags.ts), then `nodeArgs` (e.g.
 * --cpu-prof), the script and `args`.
 */
export function kscaleArgv(role: ProcessRole, nodeArgs: string[], args: string[]): string[] {
  return [...nodeRuntimeFlags(role), ...nodeArgs, KSCALE, ...args];
}

/** Starts `kscale server` on a free 127.0.0.1 port with its store in dataDir. */
export async function startKscale(
  cleanup: Cleanup,
  dataDir: string,
  extraArgs: string[],
  nodeArgs: string[],
): Promise<ServerProcess> {
  const p = spawn(
    process.execPath,
    kscaleArgv('server', nodeArgs, [
      'server',
      // The plain lab port, as before secure serving was the default; the secure port on a free port, not 6443.
      '--insecure-port',
      '0',
      '--secure-port',
      '0',
      '--bind-address',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      ...extraArgs,
    ]),
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // A CPU profile is written at exit: give it time.
  register(cleanup, p, nodeArgs.includes('--cpu-prof') ? 30_000 : 10_000);
  let err = '';
  p.stderr!.on('data', (d: Buffer) => {
    if (err.length < 64 * 1024) err += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kscale server did not start in 30 s: ${err}`)), 30_000);
    p.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kscale server exited with ${code}: ${err}`));
    });
    createInterface({ input: p.stdout! }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port), pid: p.pid!, stderr: () => err };
}

/** Starts the bare-HTTP reference server serving pod for GET. */
export async function startBare(cleanup: Cleanup, pod: string): Promise<ServerProcess> {
  const p = fork(fileURLToPath(new URL('./bare_server.js', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  register(cleanup, p, 5_000);
  const port = await new Promise<number>((resolve, reject) => {
    p.once('message', (m: { port: number }) => resolve(m.port));
    p.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    const start: BareStart = { type: 'start', pod };
    p.send(start);
  });
  return { host: '127.0.0.1', port, pid: p.pid!, stderr: () => '' };
}

/** The load-generator process: runs jobs one at a time. */
export class LoadGenerator {
  private readonly p: ChildProcess;

  constructor(cleanup: Cleanup) {
    this.p = fork(fileURLToPath(new URL('./loadgen.js', import.meta.url)), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    register(cleanup, this.p, 5_000);
  }

  /** The generator's process id. */
  get pid(): number {
    return this.p.pid!;
  }

  /** Runs one phase in the generator. */
  run(job: Job): Promise<JobResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`load generator exited with ${code}`));
      this.p.once('exit', onExit);
      this.p.once('message', (m: LoadGenReply) => {
        this.p.off('exit', onExit);
        if (m.type === 'result') resolve(m.result);
        else reject(new Error(`load generator: ${m.message}`));
      });
      const req: LoadGenRequest = { type: 'run', job };
      this.p.send(req);
    });
  }
}

/**
 * Runs a benchmark's body with one Cleanup that also runs on SIGINT/SIGTERM
 * and on failure, so no server process or temp dir outlives the run.
 */
export async function runBenchmark(
  name: string,
  progress: (msg: string) => void,
  body: (cleanup: Cleanup) => Promise<void>,
): Promise<void> {
  const cleanup = new Cleanup();
  const onSignal = (sig: NodeJS.Signals): void => {
    progress(`${sig}: cleaning up`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await body(cleanup);
  } catch (err) {
    console.error(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  } finally {
    await cleanup.run();
  }
}
