import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningComponent } from '../supervisor.js';
import { CHAOS_SCENARIOS, killEach } from './scenario.js';

const comp = (name: string): RunningComponent => ({ spec: { name } }) as unknown as RunningComponent;

test('the kill scenario targets the server, controller-manager, scheduler, one fleet process and etcd, in that order', async () => {
  const running = ['etcd', 'etcd-events', 'server', 'controller-manager', 'scheduler', 'nodes-0', 'nodes-1'].map(comp);
  assert.deepEqual(
    (await killEach.targets(running)).map((c) => c.spec.name),
    ['server', 'controller-manager', 'scheduler', 'nodes-0', 'etcd'],
  );
  assert.deepEqual(
    (await killEach.targets(['server', 'scheduler', 'nodes'].map(comp))).map((c) => c.spec.name),
    ['server', 'scheduler', 'nodes'],
  );
});

test('--chaos alone names the kill scenario', () => {
  assert.equal(CHAOS_SCENARIOS.get('kill'), killEach);
});
