/**
 * A real full disk: the server's data dir is a 16 MiB tmpfs. Writes fill it
 * until they fail with etcd's NOSPACE Status; reads and deletes go on; a
 * restart on the disk while it is still full (to the last byte) starts, with
 * reads and deletes working and writes refused; and after the disk is grown
 * and the server restarted, every acknowledged object is there. If the mount is
 * refused the test fails (the suite runs as root), it never skips.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { INSECURE_PORT, startServer, type TestServer } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'kscale-diskfull-'));
const mnt = join(dir, 'data');
let server: TestServer | undefined;
let mounted = false;

async function kill(s: TestServer): Promise<void> {
  if (s.process.exitCode !== null || s.process.signalCode !== null) return;
  const exited = new Promise((r) => s.process.once('exit', r));
  s.process.kill('SIGTERM');
  await exited;
}

after(async () => {
  if (server !== undefined) await kill(server);
  if (mounted) execFileSync('umount', [mnt]);
  await server?.stop();
});

/** Writes `file` until the filesystem has no byte left (ENOSPC). */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let size = chunk.length; size > 0;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        size >>= 1; // the last few KiB: smaller writes until not even one byte fits
      }
    }
  } finally {
    closeSync(fd);
  }
}

const cm = (name: string, size: number): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: name.padEnd(size, 'x') } });

test('a full disk fails writes with the NOSPACE Status, reads and deletes go on, and nothing acknowledged is lost', async () => {
  mkdirSync(mnt);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt]);
  mounted = true;
  // The quota is far above the disk: the disk itself must run out.
  server = await startServer([...INSECURE_PORT, '--quota-backend-bytes', String(1024 ** 3)], dir);
  const base = `${server.url}/api/v1/namespaces/default/configmaps`;
  const acked = new Map<string, string>();
  let failure: { code?: number; message?: string } | null = null;
  for (let i = 0; i < 200 && failure === null; i++) {
    const name = `fill-${i}`;
    const r = await fetch(base, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: cm(name, 400_000),
    });
    const body = (await r.json()) as { code?: number; message?: string; metadata?: { resourceVersion: string } };
    if (r.status === 201) acked.set(name, body.metadata!.resourceVersion);
    else failure = body;
  }
  assert.ok(failure !== null, 'the 16 MiB disk filled up');
  assert.equal(failure.code, 500);
  assert.match(failure.message ?? '', /database space exceeded/);
  assert.ok(acked.size > 5, `${acked.size} writes acknowledged before the disk filled`);
  // Small writes are refused as well while the alarm holds.
  const small = await fetch(base, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: cm('small', 10),
  });
  assert.equal(small.status, 500);
  // Reads go on.
  const list = (await (await fetch(base)).json()) as { items: unknown[] };
  assert.equal(list.items.length, acked.size);
  // Deletes go on (etcd allows them under NOSPACE).
  const del = await fetch(`${base}/fill-0`, { method: 'DELETE' });
  assert.equal(del.status, 200, await del.text());
  acked.delete('fill-0');

  // A restart on the disk while it is still full (every last byte taken): the server starts, reads and deletes
  // work, writes get the NOSPACE Status.
  await kill(server);
  assert.ok(existsSync(join(mnt, 'space.reserve')), 'the first start put a space reserve in the data dir');
  fillDisk(join(mnt, 'filler'));
  server = await startServer([...INSECURE_PORT, '--quota-backend-bytes', String(1024 ** 3)], dir);
  assert.ok(!existsSync(join(mnt, 'space.reserve')), 'the restart on the full disk opened by freeing the reserve');
  const afterRestart = (await (await fetch(base.replace(/^http:\/\/[^/]+/, server.url))).json()) as {
    items: unknown[];
  };
  assert.equal(afterRestart.items.length, acked.size, 'every acknowledged object is read after the restart');
  const base2 = `${server.url}/api/v1/namespaces/default/configmaps`;
  const refused = await fetch(base2, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: cm('late', 10),
  });
  assert.equal(refused.status, 500);
  assert.match(((await refused.json()) as { message: string }).message, /database space exceeded/);
  const del2 = await fetch(`${base2}/fill-1`, { method: 'DELETE' });
  assert.equal(del2.status, 200, await del2.text());
  acked.delete('fill-1');

  // The operator grows the disk (a remount) and restarts: every acknowledged object is there, at its resourceVersion.
  await kill(server);
  rmSync(join(mnt, 'filler'));
  execFileSync('mount', ['-o', 'remount,size=32m', mnt]);
  server = await startServer([...INSECURE_PORT, '--quota-backend-bytes', String(1024 ** 3)], dir);
  assert.ok(existsSync(join(mnt, 'space.reserve')), 'with room again the reserve is back');
  for (const [name, rv] of acked) {
    const r = await fetch(`${server.url}/api/v1/namespaces/default/configmaps/${name}`);
    assert.equal(r.status, 200, `${name} survived`);
    assert.equal(((await r.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, rv);
  }
  for (const gone of ['fill-0', 'fill-1'])
    assert.equal(
      (await fetch(`${server.url}/api/v1/namespaces/default/configmaps/${gone}`)).status,
      404,
      `the delete of ${gone} held`,
    );
});
