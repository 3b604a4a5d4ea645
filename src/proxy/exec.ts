/**
 * Runs the kernel tools (iptables-restore, nft, ipvsadm, conntrack), inside a
 * network namespace when one is given: `ip netns exec <ns> tool …`. This lets
 * one proxy process talk to the API server from the host namespace while it
 * programs a test's "node" namespace.
 */
import { spawn } from 'node:child_process';

/** The result of one command. */
export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A tool failure, with the command and what it printed. */
export class ExecError extends Error {
  constructor(
    readonly argv: readonly string[],
    readonly result: ExecResult,
  ) {
    super(`${argv.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(0, 2000)}`);
    this.name = 'ExecError';
  }
}

/** Runs commands, optionally inside a network namespace. */
export class Executor {
  /** Bytes written to tools' stdin so far (what the kernel was handed). */
  bytesIn = 0;
  /**
   * @param netns a named network namespace (`ip netns`), or undefined for the current one.
   * @param timeoutMs a tool still running after this long is killed and reported as exit 124 (0: no limit).
   */
  constructor(
    readonly netns?: string,
    readonly timeoutMs = 0,
  ) {}

  /** Runs argv with optional stdin; resolves with the result whatever the exit code. */
  run(argv: readonly string[], stdin?: string | Buffer | readonly Buffer[]): Promise<ExecResult> {
    const full = this.netns === undefined ? argv : ['ip', 'netns', 'exec', this.netns, ...argv];
    return new Promise((resolve, reject) => {
      const p = spawn(full[0]!, full.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      p.stdout.on('data', (d: Buffer) => out.push(d));
      p.stderr.on('data', (d: Buffer) => err.push(d));
      let timedOut = false;
      const timer =
        this.timeoutMs > 0 ? setTimeout(() => ((timedOut = true), p.kill('SIGKILL')), this.timeoutMs) : undefined;
      p.on('error', reject);
      p.on('close', (code) => {
        if (timer !== undefined) clearTimeout(timer);
        const stderr = Buffer.concat(err).toString() + (timedOut ? `killed after ${this.timeoutMs} ms\n` : '');
        resolve({ code: timedOut ? 124 : (code ?? -1), stdout: Buffer.concat(out).toString(), stderr });
      });
      // A tool that exits early (bad input) closes stdin; the exit code tells the story, not EPIPE.
      p.stdin.on('error', () => undefined);
      if (stdin === undefined || typeof stdin === 'string' || Buffer.isBuffer(stdin)) {
        if (stdin !== undefined) this.bytesIn += Buffer.byteLength(stdin);
        p.stdin.end(stdin);
        return;
      }
      // Parts written in order, without joining them into one copy.
      for (const b of stdin as readonly Buffer[]) {
        this.bytesIn += b.length;
        p.stdin.write(b);
      }
      p.stdin.end();
    });
  }

  /** Runs argv and throws ExecError unless it exits 0. */
  async check(argv: readonly string[], stdin?: string | Buffer | readonly Buffer[]): Promise<string> {
    const r = await this.run(argv, stdin);
    if (r.code !== 0) throw new ExecError(argv, r);
    return r.stdout;
  }
}
