/** Command-line flags of the benchmark scripts. */

/** The value after `flag` in `argv` (`--pods 200` → "200"), or undefined when the flag is absent. */
export function flagValue(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i < 0 ? undefined : argv[i + 1];
}

/** The positive integer after `flag`, or `fallback` when the flag is absent; anything else throws. */
export function positiveIntFlag(argv: readonly string[], flag: string, fallback: number): number {
  const v = flagValue(argv, flag);
  const n = v === undefined ? fallback : Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive integer`);
  return n;
}
