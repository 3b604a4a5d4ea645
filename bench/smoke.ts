/**
 * What every benchmark's smoke test does first: run the script (`node <args>`, usually `main.js --quick`) and
 * require that it started and exited 0 within the time given, printing its output when it did not.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/** Runs `node <args>`; returns its output once it exited 0 within `timeoutMs` (SIGTERM after that). */
export function runScript(args: string[], timeoutMs: number): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGTERM' });
  assert.equal(r.error, undefined, `could not run ${args.join(' ')}: ${r.error?.message}`);
  assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}
