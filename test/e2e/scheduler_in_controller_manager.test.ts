/** `kscale controller-manager --run-scheduler`: the scheduler runs inside the controller-manager process and binds pods. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { KSCALE, startServer } from './harness.js';
import { clientFor, createNode, podManifest, podsOf, waitBound } from './scheduler_helpers.js';

test('controller-manager --run-scheduler schedules pods and exits 0 on SIGTERM', { timeout: 60_000 }, async () => {
  const srv = await startServer();
  const rest = clientFor(srv.kubeconfig);
  const p = spawn(process.execPath, [KSCALE, 'controller-manager', '--kubeconfig', srv.kubeconfig, '--run-scheduler'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  p.stderr!.on('data', (d: Buffer) => lines.push(d.toString()));
  try {
    await createNode(rest, 'n1');
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no scheduler start line: ${lines.join('\n')}`)), 30_000);
      createInterface({ input: p.stdout! }).on('line', (l) => {
        lines.push(l);
        if (l.startsWith('kscale scheduler started')) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    assert.ok(lines.some((l) => l.startsWith('kscale controller-manager started')));
    await podsOf(rest).create(podManifest('p', { cpu: '100m' }));
    assert.equal((await waitBound(rest, ['p'])).get('p'), 'n1');
    const exited = new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
    p.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    if (p.exitCode === null) p.kill('SIGKILL');
    rest.close();
    await srv.stop();
  }
});
