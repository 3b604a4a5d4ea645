/**
 * Parsers for commander's argParser, shared by the client flags and every
 * `kscale` subcommand. A bad value throws commander's InvalidArgumentError, so
 * commander reports which flag it was instead of crashing with a stack.
 */
import { InvalidArgumentError } from 'commander';
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
