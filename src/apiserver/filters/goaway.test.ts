import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequestInfo } from '../request_info.js';
import { withProbabilisticGoaway } from './goaway.js';

function h2Request(): { req: IncomingMessage; closes: () => number } {
  let n = 0;
  const session = { closed: false, destroyed: false, close: () => void n++ };
  return { req: { stream: { session } } as unknown as IncomingMessage, closes: () => n };
}

const finished = { writableFinished: true } as unknown as ServerResponse;

test('GOAWAY follows an HTTP/2 request when the draw is under the chance, never a watch or an HTTP/1.1 request', async () => {
  const draws = [0.001, 0.5];
  const filter = withProbabilisticGoaway(0.02, () => draws.shift() ?? 1);
  const handler = filter(async () => undefined);
  const get = parseRequestInfo('GET', '/api/v1/namespaces/default/pods/p');
  const a = h2Request();
  await handler(a.req, finished, get);
  assert.equal(a.closes(), 1, 'draw 0.001 < 0.02');
  const b = h2Request();
  await handler(b.req, finished, get);
  assert.equal(b.closes(), 0, 'draw 0.5 >= 0.02');
  const always = withProbabilisticGoaway(0.02, () => 0)(async () => undefined);
  const w = h2Request();
  await always(w.req, finished, parseRequestInfo('GET', '/api/v1/pods?watch=true'));
  assert.equal(w.closes(), 0, 'a watch is long-running');
  await always({} as IncomingMessage, finished, get);
});

test('GOAWAY waits for the response to finish', async () => {
  const res = Object.assign(new EventEmitter(), { writableFinished: false }) as unknown as ServerResponse;
  const r = h2Request();
  await withProbabilisticGoaway(0.02, () => 0)(async () => undefined)(
    r.req,
    res,
    parseRequestInfo('GET', '/api/v1/namespaces'),
  );
  assert.equal(r.closes(), 0);
  res.emit('finish');
  assert.equal(r.closes(), 1);
});
