import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RESTClient } from '../../../client/index.js';
import { CycleState } from '../../framework/cycle_state.js';
import { Code } from '../../framework/status.js';
import { fakeHandle, makePod, makeSnapshot } from '../../testing/wrappers.js';
import { defaultBinder } from './index.js';

/** A client whose pods/binding calls are recorded, failing with `err` when given. */
function binderWith(err?: Error) {
  const calls: string[] = [];
  const bind = async (name: string, namespace: string, node: string): Promise<void> => {
    calls.push(`${namespace}/${name} -> ${node}`);
    if (err !== undefined) throw err;
  };
  const client = { resource: () => ({ bind }) } as unknown as RESTClient;
  return { calls, plugin: defaultBinder({}, fakeHandle(makeSnapshot([]), { client })) };
}

test('DefaultBinder Bind: POSTs one Binding and returns Success', async () => {
  const { calls, plugin } = binderWith();
  const s = await plugin.bind(new CycleState(), makePod('p'), 'n1');
  assert.equal(s.code, Code.Success);
  assert.deepEqual(calls, ['default/p -> n1']);
});

test('DefaultBinder Bind: a failed Binding is an Error status carrying the message', async () => {
  const { plugin } = binderWith(new Error('pods "p" not found'));
  const s = await plugin.bind(new CycleState(), makePod('p'), 'n1');
  assert.deepEqual([s.code, s.message()], [Code.Error, 'pods "p" not found']);
});
