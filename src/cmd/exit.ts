/**
 * The one place a `kscale` error becomes an exit code. Usage errors (a bad flag
 * value, an unknown scenario, a missing file or kubeconfig) print one line and
 * exit 2; runtime failures print one line with the cause and exit 1, with the
 * stack only under -v or --v=N.
 */
import { Command, CommanderError } from 'commander';
import { KubeconfigError, nonNegativeIntFlag } from '../client/index.js';

/** Exit codes of every `kscale` subcommand; `kscale up` adds SLO_FAILED and INCOMPLETE. */
export const EXIT = { OK: 0, RUNTIME: 1, SLO_FAILED: 1, USAGE: 2, INCOMPLETE: 3 } as const;

/** A mistake in how the command was called: exits 2 with one line. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Runs `fn`; any error it throws becomes a UsageError carrying `what: message`. */
export function asUsage<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new UsageError(`${what}: ${messageOf(err)}`, { cause: err });
  }
}

/** An error's message with its causes' messages after it, on one line. */
export function messageOf(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const m = e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e);
    if (m !== '' && !parts.some((p) => p.includes(m))) parts.push(m);
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(': ').replace(/\s*\n\s*/g, ' ');
}

/** Whether argv asks for verbose output: -v, --verbose, or klog's --v=N with N > 0. */
export function verboseArgv(argv: readonly string[]): boolean {
  return argv.some((a, i) => {
    if (a === '-v' || a === '--verbose') return true;
    const m = /^--v=(\d+)$/.exec(a) ?? (a === '--v' ? /^(\d+)$/.exec(argv[i + 1] ?? '') : null);
    return m !== null && Number(m[1]) > 0;
  });
}

/**
 * Makes commander throw instead of exiting, on the command and every subcommand;
 * and beside each `-v, --verbose` adds klog's `--v=N` (N > 0 turns verbose on).
 */
function prepare(cmd: Command): void {
  cmd.exitOverride();
  if (cmd.options.some((o) => o.short === '-v') && !cmd.options.some((o) => o.long === '--v')) {
    cmd.option('--v <level>', "klog's log verbosity; any level above 0 is -v", nonNegativeIntFlag);
    cmd.on('option:v', (level: string) => {
      if (Number(level) > 0) cmd.setOptionValue('verbose', true);
    });
  }
  for (const sub of cmd.commands) prepare(sub);
}

/** The exit code for an error that reached the top, after writing its one line (and stack when verbose). */
export function reportError(
  err: unknown,
  prog: string,
  verbose: boolean,
  write: (s: string) => void = (s) => void process.stderr.write(s),
): number {
  if (err instanceof CommanderError) {
    // Commander has already printed its one line ("error: unknown option '--x'"); help and version exit 0.
    if (err.exitCode === 0) return EXIT.OK;
    return EXIT.USAGE;
  }
  const usage = err instanceof UsageError || err instanceof KubeconfigError;
  write(`${prog}: ${messageOf(err)}\n`);
  if (verbose && err instanceof Error && err.stack !== undefined) write(`${err.stack}\n`);
  return usage ? EXIT.USAGE : EXIT.RUNTIME;
}

/** Parses argv and runs the chosen subcommand, turning anything thrown (or left unhandled) into one line and an exit code. */
export async function runMain(program: Command, argv: readonly string[] = process.argv): Promise<void> {
  const verbose = verboseArgv(argv);
  // Errors name the subcommand that ran ("kscale up: ..."), like kubectl's "error: ..." prefix.
  let prog = program.name();
  program.hook('preAction', (_root, action) => {
    const names: string[] = [];
    for (let c: Command | null = action; c !== null; c = c.parent) names.unshift(c.name());
    prog = names.join(' ');
  });
  const fail = (err: unknown): void => {
    process.exitCode = reportError(err, prog, verbose);
    process.exit();
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  prepare(program);
  try {
    await program.parseAsync(argv as string[]);
  } catch (err) {
    // A failed command does not linger on whatever it had opened (a store, a listener).
    process.exit(reportError(err, prog, verbose));
  }
}
