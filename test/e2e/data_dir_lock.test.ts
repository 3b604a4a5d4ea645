/**
 * The embedded store refuses a second opener: a second `kscale server` on the
 * same --data-dir exits at once with one clear line, while the first keeps
 * serving; after the first is killed with SIGKILL, a new one starts there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { INSECURE_PORT, KSCALE, startServer } from './harness.js';

function runSecond(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const p = spawn(process.execPath, [KSCALE, 'server', '--secure-port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => p.once('exit', (code) => resolve({ code, stderr })));
}

test('a second server on the same data dir exits with one clear line; the lock goes with a SIGKILLed holder', async () => {
  const first = await startServer([...INSECURE_PORT]);
  const dataDir = join(first.dir, 'data');
  try {
    const t0 = Date.now();
    const second = await runSecond(dataDir);
    assert.notEqual(second.code, 0);
    assert.ok(Date.now() - t0 < 20_000);
    const lines = second.stderr.trim().split('\n');
    assert.equal(lines.length, 1, second.stderr);
    assert.match(lines[0]!, /data dir .* is in use by another kscale server/);
    assert.equal((await fetch(`${first.url}/readyz`)).status, 200, 'the first server keeps serving');

    const exited = new Promise((r) => first.process.once('exit', r));
    first.process.kill('SIGKILL');
    await exited;
    const again = await startServer([...INSECURE_PORT], first.dir);
    assert.equal((await fetch(`${again.url}/api/v1/namespaces/default`)).status, 200);
    await again.stop();
  } finally {
    await first.stop();
  }
});
