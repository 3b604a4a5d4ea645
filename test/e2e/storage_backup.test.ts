import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ETCD_TEST_MEMBER, freePort, startEtcd, type EtcdProcess } from '../../src/storage/testing/etcd_process.js';
import { INSECURE_PORT, KSCALE, startServer, type TestServer } from './harness.js';

const servers: TestServer[] = [];
const etcds: EtcdProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'kscale-backup-'));
after(async () => {
  for (const s of servers) await s.stop();
  for (const e of etcds) await e.stop();
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

/**
 * Runs the workers against `url`, takes the backup with `backup` once 200 writes are acknowledged, writes 100
 * more after it, and returns the backup's revision with the state at that revision replayed from the log of
 * acknowledged writes (name@rv=data, sorted).
 */
async function backupUnderLoad(
  url: string,
  backup: () => Promise<number>,
): Promise<{ revision: number; expected: string[] }> {
  const log: Acked[] = [];
  let done = false;
  const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(url, w, log, () => done)));
  while (log.length < 200) await new Promise((r) => setTimeout(r, 20));
  const before = log.length;
  let revision: number;
  let during = 0;
  try {
    revision = await backup();
    during = log.length - before;
  } finally {
    // Keep writing after the backup, so later writes are provably absent from it.
    const target = log.length + 100;
    while (log.length < target) await new Promise((r) => setTimeout(r, 20));
    done = true;
    await load;
  }
  assert.ok(log.some((a) => a.rv > revision) && log.some((a) => a.rv <= revision), 'the backup fell inside the load');
  process.stdout.write(`# backup at revision ${revision}; ${during} writes acknowledged while it ran\n`);
  const want = new Map<string, { rv: number; data: string | null }>();
  for (const a of [...log].sort((x, y) => x.rv - y.rv)) if (a.rv <= revision) want.set(a.name, a);
  const expected = [...want]
    .filter(([, a]) => a.data !== null)
    .map(([name, a]) => `${name}@${a.rv}=${a.data}`)
    .sort();
  return { revision, expected };
}

/** The workers' ConfigMaps a server holds, as name@rv=data, sorted. */
async function storedState(url: string): Promise<string[]> {
  const list = (await (await fetch(`${url}/api/v1/namespaces/default/configmaps`)).json()) as { items: ConfigMap[] };
  return list.items
    .filter((c) => c.metadata.name.startsWith('bk-'))
    .map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}=${c.data?.v}`)
    .sort();
}

test('an online backup taken under write load restores to exactly the state at its revision', async () => {
  const src = await startServer([...INSECURE_PORT]);
  servers.push(src);
  const snapshot = join(scratch, 'snap.db');
  const { revision, expected } = await backupUnderLoad(src.url, async () => {
    const backup = await kscale('storage', 'backup', '--data-dir', join(src.dir, 'data'), '--out', snapshot);
    assert.equal(backup.code, 0, backup.err);
    const m = /backup at revision (\d+)/.exec(backup.out);
    assert.ok(m !== null, backup.out);
    return Number(m[1]);
  });

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
  assert.deepEqual(await storedState(restored.url), expected);
});

/** Runs etcdctl (API v3, Debian's etcd-client) and returns its stdout; throws with its stderr on failure. */
function etcdctl(...args: string[]): string {
  const r = spawnSync('etcdctl', args, {
    encoding: 'utf8',
    env: { ...process.env, ETCDCTL_API: '3' },
    timeout: 60_000,
  });
  if (r.error !== undefined) throw new Error(`etcdctl is not on PATH (Debian: etcd-client): ${r.error.message}`);
  assert.equal(r.status, 0, `etcdctl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test("with etcd, the docs' drill: etcdctl snapshot save under write load, restore, and a new server holds the state at the snapshot's revision", async () => {
  const etcd = await startEtcd();
  etcds.push(etcd);
  const src = await startServer([...INSECURE_PORT, '--etcd-servers', etcd.clientUrl]);
  servers.push(src);
  const snapshot = join(scratch, 'etcd-snap.db');
  const { revision, expected } = await backupUnderLoad(src.url, async () => {
    etcdctl('--endpoints', etcd.clientUrl, 'snapshot', 'save', snapshot);
    return (JSON.parse(etcdctl('snapshot', 'status', snapshot, '-w', 'json')) as { revision: number }).revision;
  });
  await src.stop();
  await etcd.stop();

  const peerPort = await freePort();
  const peer = `http://127.0.0.1:${peerPort}`;
  const dataDir = join(mkdtempSync(join(tmpdir(), 'kscale-etcd-restored-')), 'member-data');
  etcdctl(
    'snapshot',
    'restore',
    snapshot,
    '--data-dir',
    dataDir,
    '--name',
    ETCD_TEST_MEMBER,
    '--initial-cluster',
    `${ETCD_TEST_MEMBER}=${peer}`,
    '--initial-advertise-peer-urls',
    peer,
  );
  const restoredEtcd = await startEtcd({ dataDir, peerPort });
  etcds.push(restoredEtcd);
  const restored = await startServer([...INSECURE_PORT, '--etcd-servers', restoredEtcd.clientUrl]);
  servers.push(restored);
  assert.deepEqual(await storedState(restored.url), expected);
  process.stdout.write(`# etcd snapshot at revision ${revision}: ${expected.length} ConfigMaps restored\n`);
});
