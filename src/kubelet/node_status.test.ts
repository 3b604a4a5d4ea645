import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock/index.js';
import { DEFAULT_SETTINGS, nodeIdentity, type KubeletSettings } from './config.js';
import { initialNode } from './node.js';
import { NodeStatusUpdater, type NodeStatusAPI } from './node_status.js';
import { TimerQueue } from './timer_queue.js';
import { formatTimestamp, type Node, type NodeStatus } from '../api/index.js';

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

/** An API server holding one Node, applying status patches as a merge by condition type. */
class FakeNodes implements NodeStatusAPI {
  gets: (string | undefined)[] = [];
  patches: { status: NodeStatus }[] = [];
  constructor(public node: Node) {}
  async getNode(_name: string, rv: string | undefined): Promise<Node> {
    this.gets.push(rv);
    return structuredClone(this.node);
  }
  async patchNodeStatus(_name: string, patch: unknown): Promise<Node> {
    const p = (patch as { status: NodeStatus }).status;
    this.patches.push({ status: p });
    const st = this.node.status!;
    for (const [k, v] of Object.entries(p))
      if (k !== 'conditions' && !k.startsWith('$')) (st as Record<string, unknown>)[k] = v;
    for (const c of p.conditions ?? []) {
      const i = st.conditions!.findIndex((x) => x.type === c.type);
      if (i < 0) st.conditions!.push(c);
      else st.conditions![i] = { ...st.conditions![i]!, ...c };
    }
    return structuredClone(this.node);
  }
}

function setup(over: Partial<KubeletSettings> = {}): {
  clock: FakeClock;
  api: FakeNodes;
  updater: NodeStatusUpdater;
  settings: KubeletSettings;
} {
  const clock = new FakeClock();
  const settings = { ...DEFAULT_SETTINGS, images: 5, ...over };
  const id = nodeIdentity('n-', 0, 3);
  const api = new FakeNodes(initialNode(id, settings, formatTimestamp(clock.now())));
  const updater = new NodeStatusUpdater(api, id, settings, clock);
  updater.reported();
  return { clock, api, updater, settings };
}

test('without a node informer, an unchanged status is read every update period from the API server cache and patched only every report period', async () => {
  const { clock, api, updater } = setup();
  const q = new TimerQueue(clock, () => 0);
  q.every(10_000, () => updater.sync().then(() => undefined), { initialDelayMs: 10_000 });
  for (let t = 0; t < 5 * 60; t += 10) {
    clock.step(10_000);
    await flush();
  }
  assert.equal(api.gets.length, 30);
  assert.ok(
    api.gets.every((rv) => rv === '0'),
    'every read asks for resourceVersion "0"',
  );
  assert.equal(api.patches.length, 1, 'one report at 5 min');
  const p = api.patches[0]!.status;
  assert.deepEqual(Object.keys(p).sort(), ['$setElementOrder/conditions', 'conditions']);
  assert.deepEqual(
    p.conditions![0],
    { type: 'MemoryPressure', lastHeartbeatTime: formatTimestamp(clock.now()) },
    'only heartbeat times in the patch',
  );
});

test('a Ready condition changed by someone else is corrected at the next sync, with a new transition time', async () => {
  const { clock, api, updater } = setup();
  clock.step(60_000);
  const ready = api.node.status!.conditions!.find((c) => c.type === 'Ready')!;
  Object.assign(ready, {
    status: 'Unknown',
    reason: 'NodeStatusUnknown',
    message: 'Kubelet stopped posting node status.',
  });
  assert.equal(await updater.sync(), 'patched');
  const sent = api.patches[0]!.status.conditions!;
  assert.equal(sent.length, 4);
  const r = sent.find((c) => c.type === 'Ready')!;
  assert.equal(r.status, 'True');
  assert.equal(r.lastTransitionTime, formatTimestamp(clock.now()));
  assert.notEqual(
    sent.find((c) => c.type === 'MemoryPressure')!.lastTransitionTime,
    formatTimestamp(clock.now()),
    'unchanged conditions keep their transition time',
  );
  clock.step(10_000);
  assert.equal(await updater.sync(), 'unchanged');
});

test('heartbeat=status writes the full status every update period', async () => {
  const { clock, api, updater } = setup({ heartbeat: 'status' });
  for (let i = 0; i < 3; i++) {
    clock.step(10_000);
    assert.equal(await updater.sync(), 'patched');
  }
  assert.equal(api.patches.length, 3);
  const p = api.patches[2]!.status;
  for (const f of ['capacity', 'allocatable', 'addresses', 'daemonEndpoints', 'nodeInfo', 'images', 'conditions'])
    assert.ok((p as Record<string, unknown>)[f] !== undefined, `${f} in the patch`);
  assert.equal(p.images!.length, 5);
  assert.equal(p.conditions!.find((c) => c.type === 'Ready')!.lastHeartbeatTime, formatTimestamp(clock.now()));
});

test('a failed read is retried with a quorum read, like tryUpdateNodeStatus', async () => {
  const { clock, api, updater } = setup();
  let fail = true;
  const get = api.getNode.bind(api);
  api.getNode = async (name, rv) => {
    if (fail) {
      fail = false;
      api.gets.push(rv);
      throw new Error('connection reset');
    }
    return get(name, rv);
  };
  clock.step(5 * 60_000);
  assert.equal(await updater.sync(), 'patched');
  assert.deepEqual(api.gets, ['0', undefined]);
});

test('a status missing a field the kubelet owns counts as a change', async () => {
  const { api, updater } = setup();
  delete api.node.status!.nodeInfo;
  assert.equal(await updater.sync(), 'patched');
  assert.equal(api.patches[0]!.status.nodeInfo!.kubeletVersion, 'v1.33.0-kscale');
  assert.equal(api.patches[0]!.status.images, undefined, 'unchanged fields stay out of the patch');
});

/** A kubelet with a node informer: the fake server's Node as the informer last delivered it (null before its list). */
function withLister(api: FakeNodes, settings: KubeletSettings, clock: FakeClock) {
  let seen: Node | null = null;
  const deliver = (): void => {
    seen = structuredClone(api.node);
  };
  const listed: NodeStatusAPI = {
    getNode: (name, rv) => api.getNode(name, rv),
    patchNodeStatus: async (name, patch) => {
      const n = await api.patchNodeStatus(name, patch);
      deliver(); // the watch event of the kubelet's own patch
      return n;
    },
    cachedNode: () => seen ?? undefined,
  };
  const id = nodeIdentity('n-', 0, 3);
  const u = new NodeStatusUpdater(listed, id, settings, clock);
  u.reported();
  return { updater: u, deliver, seen: () => seen };
}

test('with a node informer, a steady node makes no request between reports (upstream since 1.30)', async () => {
  const { clock, api, settings } = setup();
  const { updater, deliver } = withLister(api, settings, clock);
  deliver();
  for (let t = 0; t < 5 * 60; t += 10) {
    clock.step(10_000);
    await updater.sync();
  }
  assert.deepEqual(api.gets, [], 'no GET: every read came from the lister');
  assert.equal(api.patches.length, 1, 'the report at 5 min still goes out');
  // A change made by someone else reaches the kubelet through its informer, and is corrected.
  clock.step(10_000);
  api.node.status!.conditions!.find((c) => c.type === 'Ready')!.status = 'Unknown';
  deliver();
  assert.equal(await updater.sync(), 'patched');
  assert.equal(api.node.status!.conditions!.find((c) => c.type === 'Ready')!.status, 'True');
  assert.deepEqual(api.gets, []);
});

test('with a node informer that has not listed yet, the retry reads from the API server with a quorum read', async () => {
  const { clock, api, settings } = setup();
  const { updater } = withLister(api, settings, clock);
  clock.step(5 * 60_000);
  assert.equal(await updater.sync(), 'patched');
  assert.deepEqual(api.gets, [undefined], 'one GET, with no resourceVersion');
});

test('with a node informer, the unchanging fields are compared once per delivered Node, and a new one is compared again', async () => {
  const { clock, api, settings } = setup();
  const { updater, deliver, seen } = withLister(api, settings, clock);
  deliver();
  let serialized = 0;
  const images = seen()!.status!.images!;
  Object.defineProperty(images, 'toJSON', {
    value(this: unknown[]) {
      serialized++;
      return [...this];
    },
  });
  for (let i = 0; i < 3; i++) {
    clock.step(10_000);
    assert.equal(await updater.sync(), 'unchanged');
  }
  assert.equal(serialized, 1, "the same Node's images were serialized once");
  // Someone else empties the images: the informer delivers a new Node, and the kubelet writes its list back.
  api.node.status!.images = [];
  deliver();
  clock.step(10_000);
  assert.equal(await updater.sync(), 'patched');
  assert.equal(api.patches.at(-1)!.status.images!.length, settings.images);
});
