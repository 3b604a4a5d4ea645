import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { QUICK, rowLabels } from './config.js';

const main = fileURLToPath(new URL('./main.js', import.meta.url));

// Keeps the benchmark from rotting: it must run end to end and print every row. It asserts no speeds.
test('the storage benchmark runs with --quick, prints every row and cleans up', { timeout: 120_000 }, async () => {
  // The benchmark gets a temp root of its own, so other processes' temp dirs cannot be mistaken for its leftovers.
  const root = mkdtempSync(join(tmpdir(), 'kscale-storage-bench-test-'));
  const child = spawn(process.execPath, [main, '--quick'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: root },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  assert.equal(code, 0, `exit code ${code}\n${stderr}`);
  for (const label of rowLabels(QUICK)) {
    assert.ok(stdout.includes(label), `missing row "${label}"\n${stdout}`);
  }
  assert.match(stdout, /etcd \d+\.\d+/);
  assert.doesNotMatch(stdout, /NaN|Infinity|undefined/);
  const left = readdirSync(root);
  rmSync(root, { recursive: true, force: true });
  assert.deepEqual(left, [], 'temp dirs are removed');
});
