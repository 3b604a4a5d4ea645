/**
 * Encryption at rest end to end: a real `kscale server` with
 * --encryption-provider-config writes Secrets as ciphertext with upstream's
 * `k8s:enc:<provider>:v1:<key>:` prefix, into the embedded SQLite file and
 * into a real etcd, while kubectl reads them in plain; a server restarted with
 * identity first still reads them, and writes new ones in plain.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { dbFile } from '../../src/storage/sqlite/index.js';
import { startEtcd, type EtcdProcess } from '../../src/storage/testing/etcd_process.js';
import { KSCALE, kubectlPath, startServer, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

const KEY_A = Buffer.alloc(32, 0xa1).toString('base64');
const KEY_B = Buffer.alloc(16, 0xb2).toString('base64');

function config(providers: string): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
${providers}`;
}
const SECRETBOX = '  - secretbox:\n      keys:\n      - name: key1\n        secret: ' + KEY_A + '\n';
const AESGCM = '  - aesgcm:\n      keys:\n      - name: gcm1\n        secret: ' + KEY_B + '\n';
const IDENTITY = '  - identity: {}\n';

/** The latest stored bytes of a key in the embedded store's file, read beside the running server. */
function sqliteValue(dataDir: string, key: string): Buffer {
  const db = new Database(dbFile(dataDir), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT value FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1').get(key) as
      { value: Buffer } | undefined;
    if (row === undefined) throw new Error(`${key} is not in ${dbFile(dataDir)}`);
    return row.value;
  } finally {
    db.close();
  }
}

async function killKeepingData(s: TestServer): Promise<void> {
  const exited = new Promise((r) => s.process.once('exit', r));
  s.process.kill('SIGTERM');
  await exited;
}

async function password(k: Kubectl, name: string): Promise<string> {
  const b64 = await k.ok(['get', 'secret', name, '-o', 'jsonpath={.data.password}']);
  return Buffer.from(b64, 'base64').toString();
}

describe('encryption at rest over the embedded SQLite store', () => {
  let dir: string;
  let server: TestServer | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kscale-enc-'));
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('Secrets are ciphertext in the file, plaintext to kubectl, and still readable with identity first', async () => {
    const cfg = join(dir, 'enc.yaml');
    writeFileSync(cfg, config(SECRETBOX + IDENTITY));
    const serverDir = join(dir, 'server');
    server = await startServer(['--encryption-provider-config', cfg], mkdtempSync(serverDir));
    let k = new Kubectl(kubectlPath(), server.kubeconfig);
    await k.ok(['create', 'secret', 'generic', 'db', '--from-literal=password=hunter2']);
    await k.ok(['create', 'configmap', 'plain', '--from-literal=password=hunter2']);
    const data = join(server.dir, 'data');
    const raw = sqliteValue(data, '/registry/secrets/default/db');
    assert.equal(raw.subarray(0, 26).toString(), 'k8s:enc:secretbox:v1:key1:');
    assert.ok(!raw.includes(Buffer.from('hunter2')) && !raw.includes(Buffer.from('aHVudGVyMg')));
    // Resources the config does not name are stored as they are.
    assert.ok(sqliteValue(data, '/registry/configmaps/default/plain').includes(Buffer.from('hunter2')));
    assert.equal(await password(k, 'db'), 'hunter2');
    const list = JSON.parse(await k.ok(['get', 'secrets', '-o', 'json'])) as {
      items: { metadata: { name: string } }[];
    };
    assert.ok(list.items.some((s) => s.metadata.name === 'db'));
    await k.close();

    // Restart with identity first: the old Secret still reads; a new one is written in plain.
    await killKeepingData(server);
    writeFileSync(cfg, config(IDENTITY + SECRETBOX));
    server = await startServer(['--encryption-provider-config', cfg], server.dir);
    k = new Kubectl(kubectlPath(), server.kubeconfig);
    assert.equal(await password(k, 'db'), 'hunter2');
    await k.ok(['create', 'secret', 'generic', 'later', '--from-literal=password=swordfish']);
    assert.ok(sqliteValue(data, '/registry/secrets/default/later').includes(Buffer.from('"kind":"Secret"')));
    await k.close();
  });

  test('an invalid config keeps the server from starting', () => {
    const cfg = join(dir, 'bad.yaml');
    writeFileSync(cfg, config('  - aesgcm:\n      keys:\n      - name: k\n        secret: c2hvcnQ=\n'));
    const r = spawnSync(
      process.execPath,
      [KSCALE, 'server', '--port', '0', '--data-dir', join(dir, 'bad-data'), '--encryption-provider-config', cfg],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(r.status, 1);
    assert.match(r.stderr, /secret is not of the expected length, got 5, expected one of \[16 24 32\]/);
  });
});

describe('encryption at rest over a real etcd', () => {
  let etcd: EtcdProcess;
  let dir: string;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcd();
    dir = mkdtempSync(join(tmpdir(), 'kscale-enc-etcd-'));
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('Secrets are AES-GCM ciphertext in etcd and plaintext to kubectl, across a restart', async () => {
    const cfg = join(dir, 'enc.yaml');
    writeFileSync(cfg, config(AESGCM + IDENTITY));
    server = await startServer(['--etcd-servers', etcd.clientUrl, '--encryption-provider-config', cfg]);
    let k = new Kubectl(kubectlPath(), server.kubeconfig);
    await k.ok(['create', 'secret', 'generic', 'api', '--from-literal=password=hunter2']);
    const client = new Etcd3({ hosts: etcd.clientUrl });
    try {
      const raw = await client.get('/registry/secrets/default/api').buffer();
      assert.ok(raw !== null);
      assert.equal(raw.subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:gcm1:');
      assert.ok(!raw.includes(Buffer.from('hunter2')) && !raw.includes(Buffer.from('aHVudGVyMg')));
    } finally {
      client.close();
    }
    assert.equal(await password(k, 'api'), 'hunter2');
    await k.close();
    await killKeepingData(server);
    writeFileSync(cfg, config(IDENTITY + AESGCM));
    server = await startServer(['--etcd-servers', etcd.clientUrl, '--encryption-provider-config', cfg], server.dir);
    k = new Kubectl(kubectlPath(), server.kubeconfig);
    assert.equal(await password(k, 'api'), 'hunter2');
    await k.close();
  });
});
