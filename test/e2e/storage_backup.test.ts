import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { INSECURE_PORT, KSCALE, startServer, type TestServer } from './harness.js';

const servers: TestServer[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'kscale-backup-'));
after(async () => {
  for (const s of servers) await s.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** One acknowledged write: the object's data after it (null for a delete) at its resourceVersion. */
interface Acked {
  name: string;
  rv: number;
  data: string | null;
}

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
  data?: { v?: string };
}

const NAMES = 24;
const WORKERS = 4;

/** A worker owns names i, i+WORKERS, ...: creates, updates and deletes them, logging every acknowledged write. */
async function worker(url: string, w: number, log: Acked[], stop: () => boolean): Promise<void> {
  const base = `${url}/api/v1/namespaces/default/configmaps`;
  const live = new Set<string>();
  for (let i = 0; !stop(); i++) {
    const name = `bk-${w + WORKERS * (i % (NAMES / WORKERS))}`;
    const data = `w${w}-i${i}`;
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: data } });
    const headers = { 'Content-Type': 'application/json' };
    let r: Response;
    if (!live.has(name)) r = await fetch(base, { method: 'POST', headers, body });
    else if (i % 5 === 0) r = await fetch(`${base}/${name}`, { method: 'DELETE' });
    else r = await fetch(`${base}/${name}`, { method: 'PUT', headers, body });
    const obj = (await r.json()) as ConfigMap;
    assert.ok(r.status < 300, `write ${name}: ${r.status} ${JSON.stringify(obj)}`);
    const deleted = live.has(name) && i % 5 === 0;
    if (deleted) live.delete(name);
    else live.add(name);
    log.push({ name, rv: Number(obj.metadata.resourceVersion), data: deleted ? null : data });
  }
}

function kscale(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [KSCALE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('an online backup taken under write load restores to exactly the state at its revision', async () => {
  const src = await startServer([...INSECURE_PORT]);
  servers.push(src);
  const log: Acked[] = [];
  let done = false;
  const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(src.url, w, log, () => done)));
  while (log.length < 200) await new Promise((r) => setTimeout(r, 20));
  const snapshot = join(scratch, 'snap.db');
  const before = log.length;
  const backup = await kscale('storage', 'backup', '--data-dir', join(src.dir, 'data'), '--out', snapshot);
  const during = log.length - before;
  // Keep writing after the backup, so later writes are provably absent from it.
  const target = log.length + 100;
  while (log.length < target) await new Promise((r) => setTimeout(r, 20));
  done = true;
  await load;
  assert.equal(backup.code, 0, backup.err);
  const m = /backup at revision (\d+)/.exec(backup.out);
  assert.ok(m !== null, backup.out);
  const revision = Number(m[1]);
  assert.ok(log.some((a) => a.rv > revision) && log.some((a) => a.rv <= revision), 'the backup fell inside the load');
  process.stdout.write(`# backup at revision ${revision}; ${during} writes acknowledged while it ran\n`);

  // The state at the backup's revision, replayed from the log of acknowledged writes.
  const want = new Map<string, { rv: number; data: string | null }>();
  for (const a of [...log].sort((x, y) => x.rv - y.rv)) if (a.rv <= revision) want.set(a.name, a);
  const expected = [...want]
    .filter(([, a]) => a.data !== null)
    .map(([name, a]) => `${name}@${a.rv}=${a.data}`)
    .sort();

  // Restoring refuses a data dir that already holds a store.
  const busy = spawnSync(
    process.execPath,
    [KSCALE, 'storage', 'restore', '--from', snapshot, '--data-dir', join(src.dir, 'data')],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(busy.status, 1);
  assert.match(busy.stderr, /restore into an empty data dir/);

  const dir = mkdtempSync(join(tmpdir(), 'kscale-restored-'));
  const restore = await kscale('storage', 'restore', '--from', snapshot, '--data-dir', join(dir, 'data'));
  assert.equal(restore.code, 0, restore.err);
  assert.match(restore.out, new RegExp(`restored revision ${revision}:`));
  const restored = await startServer([...INSECURE_PORT], dir);
  servers.push(restored);
  const list = (await (await fetch(`${restored.url}/api/v1/namespaces/default/configmaps`)).json()) as {
    items: ConfigMap[];
  };
  const got = list.items
    .filter((c) => c.metadata.name.startsWith('bk-'))
    .map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}=${c.data?.v}`)
    .sort();
  assert.deepEqual(got, expected);
});
