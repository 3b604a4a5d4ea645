/** `kscale --version`: the package version and the git commit it was built from. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding kscale's package.json, found upwards from this file (src/cmd or dist/src/cmd). */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/** The commit of the checkout kscale runs from (short hash, "-dirty" with local changes), or null outside git. */
export function checkoutCommit(root = packageRoot()): string | null {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const hash = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? hash : `${hash}-dirty`;
  } catch {
    return null;
  }
}

/** The line `kscale --version` prints, e.g. "kscale 0.1.0 (commit 367ad9012345)". */
export function versionLine(root = packageRoot()): string {
  let version = 'unknown';
  try {
    version = String((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version);
  } catch {
    // A broken install still answers --version.
  }
  return `kscale ${version} (commit ${checkoutCommit(root) ?? 'unknown'})`;
}
