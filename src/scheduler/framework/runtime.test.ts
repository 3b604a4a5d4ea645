import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { resolveProfiles } from '../config.js';
import { PODGROUPS, POD_GROUP_LABEL } from '../plugins/coscheduling/index.js';
import { inTreeRegistry } from '../plugins/registry.js';
import { fakeHandle, makeNode, makePod, makeSnapshot } from '../testing/wrappers.js';
import { CycleState } from './cycle_state.js';
import { Framework } from './runtime.js';
import { Code } from './status.js';

/** The default profile over a Handle without a server. */
function defaultFramework(handle = fakeHandle(makeSnapshot([]))): Framework {
  const registry = inTreeRegistry();
  const [profile] = resolveProfiles({}, registry);
  return new Framework(profile.schedulerName, profile.plugins, registry, handle, new FakeClock());
}

test('the default profile runs upstream\u2019s Filter plugins in order, and each PreFilter Skip drops its Filter for the cycle', () => {
  const f = defaultFramework();
  assert.deepEqual(
    f.filter.map((p) => p.name),
    [
      'NodeUnschedulable',
      'NodeName',
      'TaintToleration',
      'NodeAffinity',
      'NodePorts',
      'NodeResourcesFit',
      'VolumeBinding',
      'PodTopologySpread',
      'InterPodAffinity',
    ],
  );
  const state = new CycleState();
  assert.equal(f.runPreFilterPlugins(state, makePod('plain'), makeSnapshot([])), null);
  assert.deepEqual(
    state.filters?.map((p) => p.name),
    ['NodeUnschedulable', 'TaintToleration', 'NodeResourcesFit'],
  );
});

test('the first failing Filter decides, and its status names the plugin', () => {
  const snap = makeSnapshot([
    makeNode('cordoned', { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] }),
    makeNode('small', { allocatable: { cpu: '1' } }),
  ]);
  const f = defaultFramework(fakeHandle(snap));
  const pod = makePod('p', { requests: { cpu: '2' } });
  const state = new CycleState();
  f.runPreFilterPlugins(state, pod, snap);
  const got = snap.nodes().map((n) => {
    const s = f.runFilterPlugins(state, pod, n);
    return [n.name, s?.plugin, s?.message()];
  });
  assert.deepEqual(got, [
    ['cordoned', 'NodeUnschedulable', 'node(s) were unschedulable'],
    ['small', 'NodeResourcesFit', 'Insufficient cpu'],
  ]);
});

test('Score sums each plugin\u2019s normalised score times its weight; PreScore Skips leave plugins out', () => {
  // Equal nodes but for one PreferNoSchedule taint: only TaintToleration (weight 3) and the resource scores differ.
  const snap = makeSnapshot([
    makeNode('clean'),
    makeNode('tainted', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }),
  ]);
  const f = defaultFramework(fakeHandle(snap));
  const pod = makePod('p', { requests: { cpu: '1', memory: '2Gi' } });
  const state = new CycleState();
  assert.equal(f.runPreScorePlugins(state, pod, snap.nodes()), null);
  assert.deepEqual([...state.skipScore].sort(), ['InterPodAffinity', 'NodeAffinity', 'PodTopologySpread']);
  const totals = new Float64Array(2);
  f.runScorePlugins(state, pod, snap.nodes(), 2, totals, new Float64Array(2));
  // NodeResourcesFit 75 × 1, BalancedAllocation 100 × 1, TaintToleration 100 or 0 × 3.
  assert.deepEqual([...totals], [475, 175]);
});

test('Permit holds a gang member as a waiting pod until its group\u2019s quorum allows it', async () => {
  const handle = fakeHandle(makeSnapshot([]));
  const f = defaultFramework(handle);
  handle
    .informerFactory()
    .informerFor(PODGROUPS)
    .indexer.add({ metadata: { name: 'g', namespace: 'default' }, spec: { minMember: 2 } });
  const pod = makePod('a', { labels: { [POD_GROUP_LABEL]: 'g' } });
  assert.equal(f.runPermitPlugins(new CycleState(), pod, 'n1').code, Code.Wait);
  const w = f.waiting.get('a');
  assert.deepEqual(w?.pendingPlugins(), ['Coscheduling']);
  const result = w!.result;
  w!.allow('Coscheduling');
  assert.equal((await result).code, Code.Success);
  assert.equal(f.waiting.has('a'), false);
});
