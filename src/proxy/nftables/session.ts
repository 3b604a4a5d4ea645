/**
 * A long-lived `nft -i` per network namespace, fed transactions over stdin,
 * so a small sync does not pay a process start (`ip netns exec` then nft,
 * each an exec and a dynamic link) and a wait for a CPU under load.
 *
 * nft 1.0.6 in interactive mode reads one line at a time and runs each line
 * as one batch: every command on it (`;`-separated) commits, or none does
 * (checked against the kernel in nftables/session.test.ts). A transaction is
 * therefore written as one line. nft prints nothing on success and writes
 * errors to stderr; to know when a line is done and what it printed, each
 * transaction is followed by a marker line `kscale-sync <n>` that is a syntax
 * error, so nft echoes it on stderr after the transaction's own errors. The
 * marker touches neither the parser's state nor the kernel.
 *
 * A transaction that prints an error is reported as an ExecError, like
 * `nft -f` exiting 1; one that outlives the timeout, or a process that died,
 * is killed and reported as exit 124/-1, and the next transaction starts a
 * new process.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ExecError } from '../exec.js';

const MARKER = 'kscale-sync';

interface Pending {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout | undefined;
  /** The process the line was written to. */
  readonly proc: ChildProcessWithoutNullStreams;
}

/** One `nft -i` process, optionally inside a named network namespace. */
export class NftSession {
  private proc: ChildProcessWithoutNullStreams | undefined;
  private stderr = '';
  private seq = 0;
  private pending: Pending | undefined;
  /** Transactions serialized: one line in flight at a time. */
  private queue: Promise<void> = Promise.resolve();
  /** Processes started (1 for a healthy session). */
  starts = 0;

  /**
   * @param netns a named network namespace, or undefined for the current one.
   * @param timeoutMs a transaction still running after this long kills the process (0: no limit).
   */
  constructor(
    readonly netns?: string,
    readonly timeoutMs = 0,
  ) {}

  /** The argv the session runs (for error messages). */
  get argv(): readonly string[] {
    return this.netns === undefined ? ['nft', '-i'] : ['ip', 'netns', 'exec', this.netns, 'nft', '-i'];
  }

  /** Applies `nft -f` text (one command per line) as one atomic transaction; throws ExecError if nft refused it. */
  apply(text: string): Promise<void> {
    const line = toLine(text);
    const run = this.queue.then(() => this.send(line));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * CPU ms the live process has used (utime+stime from /proc), 0 when none runs: a long-lived child's CPU is not in
   * the parent's cutime until it exits, so benchmarks read it here.
   */
  cpuMs(): number {
    const pid = this.proc?.pid;
    if (pid === undefined) return 0;
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      return 0;
    }
  }

  /** Ends the process (nft quits at the end of its input). */
  close(): void {
    const p = this.proc;
    this.proc = undefined;
    if (p === undefined) return;
    p.stdin.end();
    // A process that ignores its end of input is not left behind.
    setTimeout(() => p.exitCode === null && p.signalCode === null && p.kill('SIGKILL'), 2000).unref();
  }

  private start(): ChildProcessWithoutNullStreams {
    const argv = this.argv;
    const p = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    this.starts++;
    this.stderr = '';
    p.stdout.resume();
    p.stderr.setEncoding('utf8');
    p.stderr.on('data', (d: string) => this.onStderr(p, d));
    p.stdin.on('error', () => undefined);
    p.on('error', (err) => this.fail(p, -1, `cannot run ${argv.join(' ')}: ${err.message}`));
    p.on('close', (code, signal) => this.fail(p, code ?? -1, `nft exited ${code ?? signal}`));
    // A session no one closed does not keep the process alive; nft exits when its stdin closes with us.
    p.unref();
    (p.stdin as unknown as { unref?: () => void }).unref?.();
    (p.stdout as unknown as { unref?: () => void }).unref?.();
    (p.stderr as unknown as { unref?: () => void }).unref?.();
    return p;
  }

  private send(line: string): Promise<void> {
    if (this.proc === undefined || this.proc.exitCode !== null || this.proc.signalCode !== null)
      this.proc = this.start();
    const p = this.proc;
    const seq = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      const timer =
        this.timeoutMs > 0
          ? setTimeout(() => this.fail(p, 124, `killed after ${this.timeoutMs} ms`), this.timeoutMs)
          : undefined;
      this.pending = { seq, resolve, reject, timer, proc: p };
      p.stdin.write(`${line}\n${MARKER} ${seq}\n`);
    });
  }

  /** Collects stderr until the marker's echo and its caret line; what came before them is the transaction's. */
  private onStderr(p: ChildProcessWithoutNullStreams, d: string): void {
    if (p !== this.proc) return;
    this.stderr += d;
    const cur = this.pending;
    if (cur === undefined) return;
    const echo = `\n${MARKER} ${cur.seq}\n`;
    const at = `\n${this.stderr}`.indexOf(echo);
    if (at < 0) return;
    const caretEnd = this.stderr.indexOf('\n', at + echo.length - 1);
    if (caretEnd < 0) return;
    // Drop the marker's own "Error: syntax error…" line, which is the one before its echo.
    const before = this.stderr.slice(0, Math.max(0, at - 1));
    const own = before.lastIndexOf('\n');
    const output = own < 0 ? '' : before.slice(0, own + 1);
    this.stderr = this.stderr.slice(caretEnd + 1);
    this.pending = undefined;
    if (cur.timer !== undefined) clearTimeout(cur.timer);
    if (output.includes('Error')) cur.reject(new ExecError(this.argv, { code: 1, stdout: '', stderr: output }));
    else cur.resolve();
  }

  private fail(p: ChildProcessWithoutNullStreams, code: number, why: string): void {
    if (p === this.proc) this.proc = undefined;
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    const cur = this.pending;
    if (cur === undefined || cur.proc !== p) return;
    this.pending = undefined;
    if (cur.timer !== undefined) clearTimeout(cur.timer);
    cur.reject(new ExecError(this.argv, { code, stdout: '', stderr: `${this.stderr}${why}\n` }));
  }
}

/** Joins `nft -f` lines into one interactive line; nft reads `;` between commands as it reads a newline. */
export function toLine(text: string): string {
  let s = text;
  if (s.endsWith('\n')) s = s.slice(0, -1);
  return s.replaceAll('\n', ' ; ');
}
