import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RESTClient } from '../../../client/index.js';
import { CycleState } from '../../framework/cycle_state.js';
import type { NodeToStatus } from '../../framework/interface.js';
import { Code, pluginStatus } from '../../framework/status.js';
import { fakeHandle, makeNode, makePod, makeSnapshot } from '../../testing/wrappers.js';
import { nodeResourcesFit } from '../noderesources/fit.js';
import { defaultPreemption, selectVictimsOnNode } from './index.js';

const fit = nodeResourcesFit();
const pod = (name: string, priority: number, cpu = '2', extra: object = {}) =>
  makePod(name, { requests: { cpu }, spec: { priority, ...extra } });

/** Two 4-CPU nodes, each full: n1 runs priorities 1 and 5, n2 priorities 3 and 100; every pod asks for 2 CPUs. */
function setup() {
  const snap = makeSnapshot(
    [makeNode('n1'), makeNode('n2')],
    [
      [pod('low', 1), 'n1'],
      [pod('mid', 5), 'n1'],
      [pod('low2', 3), 'n2'],
      [pod('high', 100), 'n2'],
    ],
  );
  const deleted: string[] = [];
  const client = {
    resource: () => ({ delete: async (name: string) => void deleted.push(name) }),
  } as unknown as RESTClient;
  const handle = fakeHandle(snap, { client, runFilterPlugins: (s, p, n) => fit.filter(s, p, n) });
  return { snap, handle, deleted };
}

const victimCases: { name: string; node: string; preemptor: ReturnType<typeof pod>; want: string[] | undefined }[] = [
  {
    name: 'the least important pod goes; the more important one is reprieved',
    node: 'n1',
    preemptor: pod('p', 10),
    want: ['low'],
  },
  {
    name: 'both lower-priority pods go when the preemptor needs the whole node',
    node: 'n1',
    preemptor: pod('p', 10, '4'),
    want: ['mid', 'low'],
  },
  { name: 'pods of higher priority are never victims', node: 'n2', preemptor: pod('p', 10, '4'), want: undefined },
  { name: 'a pod that outranks no one has no victims', node: 'n1', preemptor: pod('p', 0), want: undefined },
];

for (const c of victimCases) {
  test(`DefaultPreemption selectVictimsOnNode: ${c.name}`, () => {
    const { snap, handle } = setup();
    const victims = selectVictimsOnNode(handle, new CycleState(), c.preemptor, snap.get(c.node)!);
    assert.deepEqual(
      victims?.map((v) => v.name),
      c.want,
    );
  });
}

const insufficient = pluginStatus('NodeResourcesFit', Code.Unschedulable, 'Insufficient cpu');
const unresolvable = pluginStatus(
  'NodeAffinity',
  Code.UnschedulableAndUnresolvable,
  "node(s) didn't match Pod's node affinity/selector",
);

const postFilterCases: {
  name: string;
  preemptor: ReturnType<typeof pod>;
  filtered: [string, typeof insufficient][];
  nominated?: string;
  deleted: string[];
  message?: string;
}[] = [
  {
    name: 'picks the node whose victims matter least and deletes them',
    preemptor: pod('p', 10),
    filtered: [
      ['n1', insufficient],
      ['n2', insufficient],
    ],
    nominated: 'n1',
    deleted: ['low'],
  },
  {
    name: 'a node rejected as unresolvable is no candidate',
    preemptor: pod('p', 10),
    filtered: [
      ['n1', unresolvable],
      ['n2', insufficient],
    ],
    nominated: 'n2',
    deleted: ['low2'],
  },
  {
    name: 'no node where preemption helps',
    preemptor: pod('p', 10),
    filtered: [
      ['n1', unresolvable],
      ['n2', unresolvable],
    ],
    deleted: [],
    message: 'preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
  },
  {
    name: 'no victims anywhere',
    preemptor: pod('p', 0),
    filtered: [
      ['n1', insufficient],
      ['n2', insufficient],
    ],
    deleted: [],
    message: 'preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
  },
  {
    name: 'preemptionPolicy Never does not preempt',
    preemptor: pod('p', 10, '2', { preemptionPolicy: 'Never' }),
    filtered: [
      ['n1', insufficient],
      ['n2', insufficient],
    ],
    deleted: [],
    message: 'preemption: not eligible due to preemptionPolicy=Never.',
  },
];

for (const c of postFilterCases) {
  test(`DefaultPreemption PostFilter: ${c.name}`, async () => {
    const { handle, deleted } = setup();
    const filtered: NodeToStatus = new Map(c.filtered);
    const r = await defaultPreemption({}, handle).postFilter(new CycleState(), c.preemptor, filtered);
    assert.equal(r.nominatedNodeName, c.nominated);
    assert.deepEqual(deleted, c.deleted);
    if (c.nominated !== undefined) assert.equal(r.status.code, Code.Success);
    else assert.deepEqual([r.status.code, r.status.message()], [Code.Unschedulable, c.message]);
  });
}
