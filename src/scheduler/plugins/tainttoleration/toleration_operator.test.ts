import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CycleState } from '../../framework/cycle_state.js';
import { NodeInfo } from '../../framework/node_info.js';
import { newPodInfo } from '../../framework/pod_info.js';
import { Code } from '../../framework/status.js';
import { taintToleration } from './index.js';

const gpuNode = new NodeInfo('n1', {
  metadata: { name: 'n1' },
  spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
});
const podTolerating = (operator: string | undefined, value: string) =>
  newPodInfo({
    metadata: { name: 'p', namespace: 'ns' },
    spec: { containers: [{ name: 'c' }], tolerations: [{ key: 'dedicated', operator, value, effect: 'NoSchedule' }] },
  });

test('TaintToleration Filter: a toleration with operator "" is Equal, like upstream ToleratesTaint', () => {
  const plugin = taintToleration();
  assert.equal(plugin.filter(new CycleState(), podTolerating('', 'gpu'), gpuNode), null);
  assert.equal(plugin.filter(new CycleState(), podTolerating(undefined, 'gpu'), gpuNode), null);
  assert.equal(plugin.filter(new CycleState(), podTolerating('Equal', 'gpu'), gpuNode), null);
  assert.equal(
    plugin.filter(new CycleState(), podTolerating('', 'cpu'), gpuNode)?.code,
    Code.UnschedulableAndUnresolvable,
  );
});
