/**
 * Audit end to end: a real `kscale server` with --audit-policy-file and
 * --audit-log-path, driven by the real kubectl and raw HTTPS, and the events
 * it writes for a create, a 403, a 401 and a watch; batch mode; and a policy
 * with no rules refusing to start.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AuditEvent } from '../../src/api/index.js';
import { KSCALE, kubectlPath, secureGet, startServer, type TestServer } from './harness.js';
import { Kubectl, until } from './fixtures/kubectl/cli.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
  omitStages: [RequestReceived]
- level: Metadata
`;

function readEvents(path: string): AuditEvent[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

/** A server auditing with POLICY into `<dir>/logs/audit.log`, and kubectl for it; `stop()` removes everything. */
interface Audited {
  server: TestServer;
  k: Kubectl;
  dir: string;
  log: string;
  stop: () => Promise<void>;
}

async function startAudited(flags: string[]): Promise<Audited> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-audit-'));
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  const log = join(dir, 'logs', 'audit.log');
  const server = await startServer([
    '--audit-policy-file',
    join(dir, 'policy.yaml'),
    '--audit-log-path',
    log,
    ...flags,
  ]);
  const k = new Kubectl(kubectlPath(), server.kubeconfig);
  return {
    server,
    k,
    dir,
    log,
    stop: async () => {
      await k.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One HTTPS GET with the server's CA; returns the status and the Audit-Id header. */
async function get(server: TestServer, path: string, token?: string): Promise<{ code: number; auditID: string }> {
  const r = await secureGet(server, path, token);
  return { code: r.code, auditID: String(r.headers['audit-id'] ?? '') };
}

describe('kscale server --audit-policy-file --audit-log-path (blocking)', () => {
  let a: Audited;
  let server: TestServer;
  let k: Kubectl;
  let log: string;

  before(async () => {
    a = await startAudited(['--secure-port', '0']);
    ({ server, k, log } = a);
  });

  after(async () => {
    await a?.stop();
  });

  test('a create is one RequestResponse event with both objects, the user and the authorization decision', async () => {
    await k.ok(['create', 'configmap', 'audited', '--from-literal=k=v']);
    let ev: AuditEvent | undefined;
    await until('the create event', () => {
      ev = readEvents(log).find((e) => e.verb === 'create' && e.objectRef?.name === 'audited');
      return ev !== undefined;
    });
    assert.equal(ev!.apiVersion, 'audit.k8s.io/v1');
    assert.equal(ev!.kind, 'Event');
    assert.equal(ev!.level, 'RequestResponse');
    assert.equal(ev!.stage, 'ResponseComplete');
    assert.equal(ev!.user.username, 'kubernetes-admin');
    assert.deepEqual(ev!.objectRef, {
      resource: 'configmaps',
      namespace: 'default',
      name: 'audited',
      apiGroup: '',
      apiVersion: 'v1',
    });
    assert.equal(ev!.responseStatus?.code, 201);
    assert.deepEqual((ev!.requestObject as { data: unknown }).data, { k: 'v' });
    const resp = ev!.responseObject as { metadata: { uid: string; resourceVersion: string } };
    assert.match(resp.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.equal(ev!.annotations?.['authorization.k8s.io/decision'], 'allow');
    assert.match(ev!.userAgent ?? '', /^kubectl\//);
    assert.deepEqual(ev!.sourceIPs, ['127.0.0.1']);
    assert.match(ev!.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(ev!.stageTimestamp >= ev!.requestReceivedTimestamp);
    // The policy omits RequestReceived for this rule; nothing else about the create is recorded.
    assert.equal(readEvents(log).filter((e) => e.auditID === ev!.auditID).length, 1);
  });

  test('a 403 is recorded with its Status and decision forbid, and the Audit-Id header names the event', async () => {
    const r = await get(server, '/api/v1/namespaces/default/secrets');
    assert.equal(r.code, 403);
    assert.match(r.auditID, /^[0-9a-f-]{36}$/);
    let evs: AuditEvent[] = [];
    await until('the 403 events', () => {
      evs = readEvents(log).filter((e) => e.auditID === r.auditID);
      return evs.some((e) => e.stage === 'ResponseComplete');
    });
    // The Metadata rule omits no stage: RequestReceived, then ResponseComplete.
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['RequestReceived', 'ResponseComplete'],
    );
    const done = evs[1]!;
    assert.equal(done.user.username, 'system:anonymous');
    assert.equal(done.responseStatus?.code, 403);
    assert.equal(done.responseStatus?.reason, 'Forbidden');
    assert.match(done.responseStatus?.message ?? '', /secrets is forbidden: User "system:anonymous" cannot list/);
    assert.equal(done.annotations?.['authorization.k8s.io/decision'], 'forbid');
  });

  test('a rejected credential (401) is recorded once, at ResponseStarted, without a user', async () => {
    const r = await get(server, '/api/v1/namespaces', 'not-a-valid-token');
    assert.equal(r.code, 401);
    let evs: AuditEvent[] = [];
    await until('the 401 event', () => {
      evs = readEvents(log).filter((e) => e.auditID === r.auditID);
      return evs.length > 0;
    });
    assert.equal(evs.length, 1);
    assert.equal(evs[0]!.stage, 'ResponseStarted');
    assert.deepEqual(evs[0]!.user, {});
    assert.equal(evs[0]!.responseStatus?.code, 401);
    assert.equal(evs[0]!.responseStatus?.message, 'Authentication failed, attempted: bearer');
  });

  test('a watch is recorded at ResponseStarted when it begins and ResponseComplete when it ends', async () => {
    const w = k.start(['get', 'pods', '--watch', '--request-timeout=0']);
    let started: AuditEvent | undefined;
    await until('the watch ResponseStarted event', () => {
      started = readEvents(log).find((e) => e.verb === 'watch' && e.stage === 'ResponseStarted');
      return started !== undefined;
    });
    assert.equal(started!.objectRef?.resource, 'pods');
    assert.equal(started!.responseStatus?.code, 200);
    assert.ok(!readEvents(log).some((e) => e.auditID === started!.auditID && e.stage === 'ResponseComplete'));
    await w.kill();
    await until('the watch ResponseComplete event', () =>
      readEvents(log).some((e) => e.auditID === started!.auditID && e.stage === 'ResponseComplete'),
    );
  });

  test('rules with level None record nothing, and the metrics count events and levels', async () => {
    await get(server, '/healthz');
    assert.ok(!readEvents(log).some((e) => e.requestURI.startsWith('/healthz')));
    const metrics = await k.ok(['get', '--raw', '/metrics']);
    const events = /^apiserver_audit_event_total (\d+)/m.exec(metrics);
    assert.ok(events !== null && Number(events[1]) > 0, 'apiserver_audit_event_total');
    assert.match(metrics, /^apiserver_audit_level_total\{level="None"\} [1-9]/m);
    assert.match(metrics, /^apiserver_audit_level_total\{level="RequestResponse"\} [1-9]/m);
  });
});

describe('kscale server --audit-log-mode=batch', () => {
  test('events reach the log through the buffer', async () => {
    const { k, log, stop } = await startAudited([
      '--audit-log-mode',
      'batch',
      '--audit-log-batch-max-size',
      '10',
      '--audit-log-batch-max-wait',
      '50ms',
    ]);
    try {
      await k.ok(['create', 'configmap', 'batched']);
      await until('the batched create event', () =>
        readEvents(log).some((e) => e.verb === 'create' && e.objectRef?.name === 'batched'),
      );
      // The harness's server is secure by default: its kubeconfig is the admin's client certificate.
      const ev = readEvents(log).find((e) => e.objectRef?.name === 'batched')!;
      assert.equal(ev.user.username, 'kubernetes-admin');
    } finally {
      await stop();
    }
  });
});

describe('kscale server --audit-log-maxsize --audit-log-maxbackup', () => {
  test('the log rotates at 1 MB into upstream-named backups, keeping the newest one', async () => {
    const { k, dir, log, stop } = await startAudited(['--audit-log-maxsize', '1', '--audit-log-maxbackup', '1']);
    try {
      // Each create is logged at RequestResponse with both objects: about 400 KB per event.
      writeFileSync(join(dir, 'v'), 'x'.repeat(200_000));
      for (let i = 0; i < 8; i++) await k.ok(['create', 'configmap', `big-${i}`, `--from-file=${join(dir, 'v')}`]);
      const logs = dirname(log);
      const files = readdirSync(logs);
      const backups = files.filter((f) => f !== 'audit.log');
      assert.equal(backups.length, 1, files.join(', '));
      assert.match(backups[0]!, /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
      for (const f of files) assert.ok(statSync(join(logs, f)).size <= 1024 * 1024, f);
      // Every line in both files is a whole event.
      const events = [...readEvents(join(logs, backups[0]!)), ...readEvents(log)];
      assert.ok(events.some((e) => e.objectRef?.name === 'big-7'));
    } finally {
      await stop();
    }
  });
});

test('a policy with no rules keeps the server from starting, with upstream’s message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-audit-bad-'));
  try {
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n');
    const r = spawnSync(
      process.execPath,
      [
        KSCALE,
        'server',
        '--port',
        '0',
        '--data-dir',
        join(dir, 'data'),
        '--audit-policy-file',
        policy,
        '--audit-log-path',
        '-',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(r.status, 1);
    assert.match(r.stderr, /loaded illegal policy with 0 rules from file .*policy\.yaml/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
