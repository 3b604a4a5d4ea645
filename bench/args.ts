/** Command-line flags of the benchmark scripts. */

/** The value after `flag` in `argv` (`--pods 200` → "200"), or undefined when the flag is absent. */
export function flagValue(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i < 0 ? undefined : argv[i + 1];
}
