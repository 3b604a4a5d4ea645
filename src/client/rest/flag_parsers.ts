/**
 * Parsers for commander's argParser, shared by the client flags and every
 * `kscale` subcommand. A bad value throws commander's InvalidArgumentError, so
 * commander reports which flag it was instead of crashing with a stack.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseDuration } from '../../api/index.js';

/** Any finite number (negative allowed, e.g. a QPS where <= 0 disables limiting). */
export function numberFlag(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`not a number: ${v}`);
  return n;
}

/** A finite number >= 0 (rates, fractions, thresholds). */
export function nonNegativeNumberFlag(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`not a non-negative number: ${v}`);
  return n;
}

/** An integer >= 0 (counts, ports, sizes). */
export function nonNegativeIntFlag(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`not a non-negative integer: ${v}`);
  return n;
}

/** A Go-style duration ("5m0s", "300ms"; a bare number is seconds) in milliseconds. */
export function durationFlag(v: string): number {
  try {
    return parseDuration(v);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
}

/** A Go-style duration kept as written, for flags passed on to another process; a bad one throws here. */
export function durationTextFlag(v: string): string {
  durationFlag(v);
  return v;
}

/** Any integer (negative allowed, e.g. a port where -1 means off or a threshold where <= 0 disables). */
export function intFlag(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n)) throw new InvalidArgumentError(`not an integer: ${v}`);
  return n;
}

/** A Go-style boolean flag value: true or false (a bare `--flag` or "" is true), like pflag's. */
export function booleanFlag(v: string): boolean {
  if (v === 'true' || v === '' || v === '1' || v === 't' || v === 'T' || v === 'TRUE' || v === 'True') return true;
  if (v === 'false' || v === '0' || v === 'f' || v === 'F' || v === 'FALSE' || v === 'False') return false;
  throw new InvalidArgumentError(`not a boolean (true or false): ${v}`);
}

/**
 * Keeps `old` working as a hidden, deprecated spelling of the flag `current` (same
 * value syntax), warning like pflag's "Flag --x has been deprecated, use --y instead".
 */
export function deprecatedAlias(
  cmd: Command,
  old: string,
  current: string,
  parse?: (v: string) => unknown,
  warn = (line: string): void => void process.stderr.write(line),
): Command {
  const alias = new Option(`--${old} <value>`).hideHelp();
  if (parse !== undefined) alias.argParser(parse);
  cmd.addOption(alias);
  const key = alias.attributeName();
  const target = new Option(`--${current} <value>`).attributeName();
  return cmd.hook('preAction', (self, action) => {
    if (action !== cmd || cmd.getOptionValueSource(key) !== 'cli') return;
    warn(`Flag --${old} has been deprecated, use --${current} instead\n`);
    if (self.getOptionValueSource(target) !== 'cli')
      cmd.setOptionValueWithSource(target, cmd.getOptionValue(key), 'cli');
  });
}
