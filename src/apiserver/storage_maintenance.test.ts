import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { fromLoopback } from './storage_maintenance.js';

const peer = (remoteAddress: string | undefined): IncomingMessage =>
  ({ socket: { remoteAddress } }) as unknown as IncomingMessage;

test('only loopback peers reach the debug endpoints (storage maintenance, failpoints)', () => {
  for (const a of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) assert.ok(fromLoopback(peer(a)), a);
  for (const a of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.5', 'fe80::1', '2001:db8::1', '', undefined])
    assert.ok(!fromLoopback(peer(a)), String(a));
});
