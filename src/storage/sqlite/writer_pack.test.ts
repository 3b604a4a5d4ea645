import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { packValues } from './writer.js';
import type { WriteOp } from './protocol.js';

test('a batch crosses to the writer thread as one transferred buffer; the callers keep their own bytes', async () => {
  // Small Buffers are slices of Node's shared pool: exactly what must not be cloned whole.
  const a = Buffer.from('{"kind":"Lease","metadata":{"name":"a"}}');
  const b = Buffer.from(JSON.stringify({ kind: 'Pod', metadata: { name: 'b' }, pad: 'x'.repeat(9000) }));
  assert.ok(a.buffer.byteLength > a.byteLength, 'the small value is a slice of a larger pool');
  const ops: WriteOp[] = [
    { op: 'create', key: '/leases/a', value: a, expires: null },
    { op: 'delete', key: '/pods/gone', expectMod: 3 },
    { op: 'update', key: '/pods/b', value: b, expectMod: 4, expires: 99 },
  ];
  const { ops: wire, transfer } = packValues(ops);
  assert.equal(transfer.length, 1);
  assert.equal(transfer[0]!.byteLength, a.byteLength + b.byteLength);

  const { port1, port2 } = new MessageChannel();
  const got = new Promise<WriteOp[]>((resolve) => port2.once('message', (m: WriteOp[]) => resolve(m)));
  port1.postMessage(wire, transfer);
  const received = await got;
  port1.close();
  port2.close();

  assert.equal(transfer[0]!.byteLength, 0, 'the packed buffer was transferred, not cloned');
  assert.deepEqual(
    received.map((op) => [op.op, op.key, op.op === 'delete' ? null : Buffer.from(op.value).toString()]),
    [
      ['create', '/leases/a', a.toString()],
      ['delete', '/pods/gone', null],
      ['update', '/pods/b', b.toString()],
    ],
  );
  assert.equal((received[2] as { expectMod: number }).expectMod, 4);
  // The callers' buffers (the watch cache keeps them) are intact.
  assert.equal(JSON.parse(a.toString()).metadata.name, 'a');
  assert.equal(JSON.parse(b.toString()).metadata.name, 'b');
});

test('a batch of deletes only transfers nothing', () => {
  const ops: WriteOp[] = [{ op: 'delete', key: '/x', expectMod: 1 }];
  assert.deepEqual(packValues(ops), { ops, transfer: [] });
});
