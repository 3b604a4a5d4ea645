import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childArgs } from './nodes_processes.js';

test('fleet process i serves its endpoints on --secure-port + i; 0 and -1 are passed on as they are', () => {
  const slice = { firstIndex: 10, count: 5 };
  const tail = (a: string[]): string[] => a.slice(a.indexOf('--secure-port'), a.indexOf('--secure-port') + 2);
  assert.deepEqual(tail(childArgs(['nodes'], slice, 5, { port: 20000, index: 2 })), ['--secure-port', '20002']);
  assert.deepEqual(tail(childArgs(['nodes'], slice, 5, { port: 0, index: 2 })), ['--secure-port', '0']);
  assert.deepEqual(tail(childArgs(['nodes'], slice, 5, { port: -1, index: 1 })), ['--secure-port', '-1']);
  assert.ok(!childArgs(['nodes'], slice, 5).includes('--secure-port'));
  // The slice's own flags come last, so they win over the parent's.
  assert.deepEqual(childArgs(['nodes', '--count', '100'], slice, 5).slice(-6), [
    '--first-index',
    '10',
    '--count',
    '5',
    '--join-rate',
    '5',
  ]);
});
