/**
 * The benchmark's child processes (watch clients, the writer): each is forked
 * with an IPC channel that carries typed arrays, answers one request at a
 * time, and is stopped by the run's Cleanup on success, error or signal.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Cleanup } from '../apiserver/processes.js';

/** A forked helper process speaking request/reply over IPC. */
export class Child<Req, Rep extends { type: string }> {
  private readonly p: ChildProcess;
  private busy = false;

  /** Forks `module` (relative to this folder, compiled) and registers it for cleanup. */
  constructor(
    cleanup: Cleanup,
    module: string,
    readonly name: string,
  ) {
    this.p = fork(fileURLToPath(new URL(module, import.meta.url)), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const alive = (): boolean => this.p.exitCode === null && this.p.signalCode === null;
    cleanup.add(
      async () => {
        if (!alive()) return;
        const gone = new Promise((r) => this.p.once('exit', r));
        this.p.kill('SIGTERM');
        const t = setTimeout(() => this.p.kill('SIGKILL'), 5_000);
        await gone;
        clearTimeout(t);
      },
      () => {
        if (alive()) this.p.kill('SIGKILL');
      },
    );
  }

  /** The child's process id. */
  get pid(): number {
    return this.p.pid!;
  }

  /** Sends one request; the reply, or an error if the child fails, exits, or exceeds timeoutMs. */
  request(m: Req, timeoutMs: number): Promise<Rep> {
    if (this.busy) throw new Error(`${this.name}: a request is already pending`);
    this.busy = true;
    return new Promise<Rep>((resolve, reject) => {
      const done = (): void => {
        this.busy = false;
        clearTimeout(timer);
        this.p.off('exit', onExit);
        this.p.off('message', onMessage);
      };
      const onExit = (code: number | null): void => {
        done();
        reject(new Error(`${this.name} exited with ${code}`));
      };
      const onMessage = (r: Rep): void => {
        done();
        if (r.type === 'error') reject(new Error(`${this.name}: ${(r as unknown as { message: string }).message}`));
        else resolve(r);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.name}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.p.once('exit', onExit);
      this.p.once('message', onMessage);
      this.p.send(m as object);
    });
  }
}
