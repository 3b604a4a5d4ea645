import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isControllerEnabled, validateControllers, type ControllerDescriptor } from './controller_descriptor.js';

const d = (name: string, aliases: string[] = [], disabledByDefault = false): ControllerDescriptor => ({
  name,
  aliases,
  disabledByDefault,
  init: () => assert.fail(),
});

test('--controllers follows upstream: "*" for the default set, "-name" disables, "name" enables', () => {
  const nl = d('node-lifecycle-controller', ['nodelifecycle']);
  const off = d('bootstrap-signer-controller', [], true);
  assert.ok(isControllerEnabled(nl, ['*']));
  assert.ok(!isControllerEnabled(off, ['*']));
  assert.ok(isControllerEnabled(off, ['*', 'bootstrap-signer-controller']));
  assert.ok(!isControllerEnabled(nl, ['*', '-node-lifecycle-controller']));
  assert.ok(!isControllerEnabled(nl, ['-nodelifecycle', '*']), 'aliases work too');
  assert.ok(!isControllerEnabled(nl, ['taint-eviction-controller']), 'no star: only the named ones');
  assert.throws(() => validateControllers([nl], ['*', '-nope']), /not in the list of known controllers/);
});
