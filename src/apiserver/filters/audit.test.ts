import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { AuditEvent, AuditPolicy } from '../../api/index.js';
import { forbidden } from '../../api/index.js';
import { FakeClock } from '../../clock/index.js';
import { AuditMetrics, Auditor, PolicyRuleEvaluator, type AuditBackend } from '../audit/index.js';
import { readBody, decodeBody } from '../body.js';
import { buildChain, toListener, type Handler } from '../handler_chain.js';
import { withAudit } from './audit.js';

const POLICY: AuditPolicy = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [{ level: 'RequestResponse', omitManagedFields: true }],
};

/** A chain of: a fake authentication (user alice), the audit filter, a fake impersonation (as bob), then `handler`. */
async function serve(handler: Handler): Promise<{ events: AuditEvent[]; url: string; server: Server }> {
  const events: AuditEvent[] = [];
  const backend: AuditBackend = { processEvent: (e) => void events.push(e), shutdown: () => Promise.resolve() };
  const auditor = new Auditor({
    evaluator: new PolicyRuleEvaluator(POLICY),
    backend,
    metrics: new AuditMetrics(new Registry()),
    clock: new FakeClock(),
    decodeBody,
  });
  const chain = buildChain(handler, [
    (next) => (req, res, info) => {
      info.user = { username: 'alice', groups: ['system:authenticated'] };
      return next(req, res, info);
    },
    withAudit(auditor),
    (next) => (req, res, info) => {
      if (req.headers['impersonate-user'] !== undefined)
        info.user = { username: String(req.headers['impersonate-user']), groups: ['system:authenticated'] };
      return next(req, res, info);
    },
  ]);
  const server = createServer(toListener(chain));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { events, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function send(
  url: string,
  path: string,
  opts: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ code: number; auditID: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ code: res.statusCode ?? 0, auditID: String(res.headers['audit-id']) }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

test('the request and response objects are recorded without managedFields, with the impersonated user', async () => {
  const { events, url, server } = await serve(async (req, res) => {
    const body = decodeBody(await readBody(req), req.headers['content-type']) as { metadata: object };
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ...body, metadata: { ...body.metadata, uid: 'u-1', managedFields: [{ manager: 'x' }] } }));
  });
  try {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', managedFields: [{ manager: 'kubectl' }] },
    };
    const r = await send(url, '/api/v1/namespaces/ns/configmaps', {
      method: 'POST',
      body: JSON.stringify(cm),
      headers: { 'Content-Type': 'application/json', 'Impersonate-User': 'bob', 'Audit-ID': 'client-chosen' },
    });
    assert.equal(r.code, 201);
    assert.equal(r.auditID, 'client-chosen');
    assert.equal(events.length, 1);
    const ev = events[0]!;
    assert.equal(ev.auditID, 'client-chosen');
    assert.equal(ev.stage, 'ResponseComplete');
    assert.equal(ev.user.username, 'alice');
    assert.equal(ev.impersonatedUser?.username, 'bob');
    assert.deepEqual(ev.requestObject, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.deepEqual((ev.responseObject as { metadata: object }).metadata, { name: 'c', uid: 'u-1' });
    assert.deepEqual(ev.objectRef, {
      resource: 'configmaps',
      namespace: 'ns',
      name: 'c',
      apiGroup: '',
      apiVersion: 'v1',
    });
  } finally {
    server.close();
  }
});

test('a thrown Status is recorded with its reason; an unexpected throw is recorded as Panic only', async (t) => {
  const { events, url, server } = await serve((req) => {
    if (req.url!.includes('forbidden')) return Promise.reject(forbidden('pods', 'forbidden', 'no'));
    return Promise.reject(new Error('boom'));
  });
  t.mock.method(process, 'emitWarning', () => undefined);
  try {
    assert.equal((await send(url, '/api/v1/namespaces/ns/pods/forbidden')).code, 403);
    assert.equal((await send(url, '/api/v1/namespaces/ns/pods/broken')).code, 500);
    assert.deepEqual(
      events.map((e) => [e.stage, e.responseStatus?.code, e.responseStatus?.reason]),
      [
        ['ResponseComplete', 403, 'Forbidden'],
        ['Panic', 500, 'InternalError'],
      ],
    );
    assert.match(events[1]!.responseStatus?.message ?? '', /^APIServer panic'd: boom/);
  } finally {
    server.close();
  }
});
