/**
 * The lab's supervisor, like k3s's: it starts each component as its own
 * process, in order, waiting for each one's readiness line on stdout before
 * starting the next, and stops them in reverse order (SIGTERM, then SIGKILL
 * after a grace period). A component that exits while the lab runs fails the
 * run, so a crash is never mistaken for a slow cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** One component process of the lab. */
export interface ComponentSpec {
  /** A short name: server, controller-manager, scheduler, nodes. */
  name: string;
  command: string;
  args: string[];
  /** The output line that means the component is ready; its match is handed to `onReady`. */
  ready: RegExp;
  /** Where the readiness line appears (etcd logs to stderr); stdout by default. */
  readyStream?: 'stdout' | 'stderr';
  /** How long readiness may take. */
  readyTimeoutMs: number;
  onReady?: (m: RegExpExecArray) => void;
}

/** A running component. */
export interface RunningComponent {
  spec: ComponentSpec;
  process: ChildProcess;
  pid: number;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  /** The last 64 KiB of its stderr, for error messages. */
  stderr(): string;
}

const alive = (p: ChildProcess): boolean => p.exitCode === null && p.signalCode === null;

/** Starts components in order and stops them all, once, in reverse order. */
export class Supervisor {
  readonly components: RunningComponent[] = [];
  private stopping = false;
  private readonly onExitHandlers = new Set<
    (c: RunningComponent, code: number | null, signal: string | null) => void
  >();
  private readonly logsClosed: Promise<void>[] = [];
  /** Components being killed on purpose (chaos): their exit is not a crash. */
  private readonly killing = new Set<RunningComponent>();

  /**
   * @param logDir when given, each component's stdout and stderr are also written to `<logDir>/<name>.log`,
   *   so a stall seen in the report can be matched against what the component logged (slow commits, errors).
   */
  constructor(private readonly logDir?: string) {
    process.once('exit', this.exitHook);
  }

  private readonly exitHook = (): void => {
    // The last resort when the supervisor itself exits: nothing async can run here.
    for (const c of this.components) if (alive(c.process)) c.process.kill('SIGKILL');
  };

  /** Calls `fn` when a component exits while the supervisor is not stopping (a crash). */
  onUnexpectedExit(fn: (c: RunningComponent, code: number | null, signal: string | null) => void): void {
    this.onExitHandlers.add(fn);
  }

  /** Starts one component and resolves once its readiness line appears; rejects when it exits or times out. */
  async start(spec: ComponentSpec): Promise<RunningComponent> {
    if (this.stopping) throw new Error(`lab is stopping: ${spec.name} not started`);
    // Its own process group: a terminal's Ctrl-C reaches only the supervisor, which then stops the components in order.
    const p = spawn(spec.command, spec.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let err = '';
    p.stderr!.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-64 * 1024);
    });
    if (this.logDir !== undefined) this.keepLog(spec.name, p);
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    const c: RunningComponent = { spec, process: p, pid: p.pid ?? -1, exited, stderr: () => err };
    this.components.push(c);
    await new Promise<void>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(
        () => reject(new Error(`${spec.name} was not ready in ${spec.readyTimeoutMs / 1000} s: ${err.slice(-2000)}`)),
        spec.readyTimeoutMs,
      );
      p.once('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`${spec.name} could not start: ${e.message}`));
      });
      p.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!ready)
          reject(
            new Error(`${spec.name} exited (code ${code}, signal ${signal}) before it was ready: ${err.slice(-2000)}`),
          );
        else if (!this.stopping && !this.killing.has(c)) for (const fn of this.onExitHandlers) fn(c, code, signal);
      });
      createInterface({ input: spec.readyStream === 'stderr' ? p.stderr! : p.stdout! }).on('line', (line) => {
        if (ready) return;
        const m = spec.ready.exec(line);
        if (m === null) return;
        ready = true;
        clearTimeout(timer);
        spec.onReady?.(m);
        resolve();
      });
    });
    return c;
  }

  /** Appends everything the component prints to its log file; the readiness reader still sees stdout. */
  private keepLog(name: string, p: ChildProcess): void {
    mkdirSync(this.logDir!, { recursive: true });
    const log = createWriteStream(join(this.logDir!, `${name}.log`), { flags: 'a' });
    log.on('error', () => undefined); // A full or vanished disk must not fail the run.
    this.logsClosed.push(new Promise<void>((r) => log.once('close', () => r())));
    p.stdout!.on('data', (d: Buffer) => log.write(d));
    p.stderr!.on('data', (d: Buffer) => log.write(d));
    // 'close' comes after the last output of both pipes, so nothing is written after the end.
    p.once('close', () => log.end());
  }

  /** Kills a component with SIGKILL on purpose (chaos) and resolves once it has exited; its exit is no crash. */
  async kill(c: RunningComponent): Promise<void> {
    this.killing.add(c);
    if (alive(c.process)) c.process.kill('SIGKILL');
    await c.exited;
  }

  /**
   * Starts a killed component again from its spec (or `spec`, e.g. with another readiness line), in its place in
   * the start order; resolves once it is ready.
   */
  async restart(c: RunningComponent, spec: ComponentSpec = c.spec): Promise<RunningComponent> {
    const i = this.components.indexOf(c);
    const next = await this.start(spec);
    this.components.splice(this.components.indexOf(next), 1);
    if (i >= 0) this.components[i] = next;
    else this.components.push(next);
    return next;
  }

  /** True once stop() was called. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /** Stops every component, last started first: SIGTERM, then SIGKILL after graceMs. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    for (const c of [...this.components].reverse()) await stopComponent(c, graceMs);
    process.off('exit', this.exitHook);
    // Logs are flushed once each component's pipes close; bounded, as a grandchild may hold a pipe open.
    await Promise.race([Promise.all(this.logsClosed), new Promise<void>((r) => setTimeout(r, 2_000).unref())]);
  }
}

/** SIGTERM, then SIGKILL if it is still there after graceMs. */
async function stopComponent(c: RunningComponent, graceMs: number): Promise<void> {
  if (!alive(c.process)) return;
  c.process.kill('SIGTERM');
  const killer = setTimeout(() => alive(c.process) && c.process.kill('SIGKILL'), graceMs);
  await c.exited;
  clearTimeout(killer);
}
