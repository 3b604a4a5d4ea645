import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeClock } from '../../clock/index.js';
import { APFController, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../flowcontrol/index.js';
import { buildChain, withMetrics, type Handler } from '../handler_chain.js';
import { ApiServerMetrics } from '../metrics.js';
import { apfQueueWait } from '../request_latency.js';
import type { Obj } from '../object.js';
import { parseRequestInfo } from '../request_info.js';
import { withPriorityAndFairness } from './priority_and_fairness.js';

class FakeResponse extends EventEmitter {
  writableEnded = false;
  readonly headers: Record<string, string> = {};
  setHeader(k: string, v: string): void {
    this.headers[k] = v;
  }
}

const USER = { username: 'bob', groups: ['system:authenticated'] };

/** A level of one seat with one queue, everyone's requests in it. */
function oneSeat(): APFController {
  const apf = new APFController({
    clock: new FakeClock(),
    serverConcurrencyLimit: 1,
    stats: { objectCount: () => undefined, listFromStorage: () => false },
  });
  apf.priorityLevelHandler.replace([
    ...MANDATORY_PRIORITY_LEVELS.filter((p) => p.metadata?.name === 'exempt'),
    {
      metadata: { name: 'catch-all', uid: 'pl-uid' },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 1,
          limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } },
        },
      },
    },
  ] as Obj[]);
  apf.flowSchemaHandler.replace(
    MANDATORY_FLOW_SCHEMAS.map((f) => ({ ...f, metadata: { ...f.metadata, uid: `${f.metadata!.name}-uid` } })) as Obj[],
  );
  return apf;
}

test('a request waits for the seat, one whose client leaves is dropped, one past the queue is 429', async () => {
  const apf = oneSeat();
  const releases: (() => void)[] = [];
  const ran: string[] = [];
  const handler: Handler = async (_req, res, info) => {
    ran.push(info.name);
    await new Promise<void>((r) => releases.push(r));
    (res as unknown as FakeResponse).writableEnded = true;
  };
  const chain = withPriorityAndFairness(apf)(handler);
  const call = (name: string) => {
    const req = new EventEmitter();
    const res = new FakeResponse();
    const info = { ...parseRequestInfo('GET', `/api/v1/namespaces/ns/configmaps/${name}`), user: USER };
    const done = chain(req as IncomingMessage, res as unknown as ServerResponse, info);
    return { req, res, done };
  };
  const first = call('first');
  assert.equal(first.res.headers['X-Kubernetes-PF-FlowSchema-UID'], 'catch-all-uid');
  assert.equal(first.res.headers['X-Kubernetes-PF-PriorityLevel-UID'], 'pl-uid');
  const second = call('second');
  const third = call('third');
  await assert.rejects(third.done, (e: { status?: { code?: number; reason?: string } }) => {
    assert.equal(e.status?.code, 429);
    assert.equal(e.status?.reason, 'TooManyRequests');
    return true;
  });
  await Promise.resolve();
  assert.deepEqual(ran, ['first']);
  // The queued request's client goes away: it never runs and is answered 429.
  second.req.emit('close');
  await assert.rejects(second.done);
  const fourth = call('fourth');
  releases.shift()!();
  await first.done;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(ran, ['first', 'fourth']);
  releases.shift()!();
  await fourth.done;
});

test('system:masters is exempt: it runs at once even while the limited level is full', async () => {
  const apf = oneSeat();
  let release!: () => void;
  const chain = withPriorityAndFairness(apf)(async (_req, res) => {
    await new Promise<void>((r) => (release = r));
    (res as unknown as FakeResponse).writableEnded = true;
  });
  const info = parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps/x');
  const held = chain(new EventEmitter() as IncomingMessage, new FakeResponse() as unknown as ServerResponse, {
    ...info,
    user: USER,
  });
  const res = new FakeResponse();
  let adminRan = false;
  const admin = withPriorityAndFairness(apf)(() => {
    adminRan = true;
    return Promise.resolve();
  })(new EventEmitter() as IncomingMessage, res as unknown as ServerResponse, {
    ...info,
    user: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
  });
  await admin;
  assert.ok(adminRan);
  assert.equal(res.headers['X-Kubernetes-PF-FlowSchema-UID'], 'exempt-uid');
  release();
  await held;
});

test("the SLI histogram leaves out a request's APF queue wait, the duration histogram keeps it (as upstream)", async () => {
  const apf = oneSeat();
  const metrics = new ApiServerMetrics();
  let release: (() => void) | undefined;
  const handler: Handler = async (_req, res, info) => {
    if (info.name === 'first') await new Promise<void>((r) => (release = r));
    (res as unknown as FakeResponse).writableEnded = true;
  };
  const chain = buildChain(handler, [withMetrics(metrics), withPriorityAndFairness(apf)]);
  const call = (name: string) => {
    const res = new FakeResponse();
    const info = { ...parseRequestInfo('GET', `/api/v1/namespaces/ns/configmaps/${name}`), user: USER };
    const done = chain(new EventEmitter() as IncomingMessage, res as unknown as ServerResponse, info);
    return { res, done };
  };
  const first = call('first');
  const second = call('second');
  await new Promise((r) => setTimeout(r, 300));
  release!();
  await Promise.all([first.done, second.done]);
  assert.equal(apfQueueWait(first.res as unknown as ServerResponse), 0);
  assert.ok(apfQueueWait(second.res as unknown as ServerResponse) >= 250, 'the second request queued behind the first');
  const text = await metrics.registry.metrics();
  const sum = (name: string): number =>
    Number(new RegExp(`^${name}_sum\\{[^}]*resource="configmaps"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const duration = sum('apiserver_request_duration_seconds');
  const sli = sum('apiserver_request_sli_duration_seconds');
  // Both requests took ~0.3 s from arrival: one running, one queued behind it.
  assert.ok(duration >= 0.5, `duration sum ${duration}`);
  assert.ok(sli >= 0.25 && sli < duration - 0.2, `sli sum ${sli}, duration sum ${duration}`);
});
