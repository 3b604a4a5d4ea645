import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Graph } from './graph.js';
import { podGraphPopulator } from './graph_populator.js';
import { pvGraphPopulator } from './pv_graph_populator.js';

const pv = (name: string, claim?: string, secret?: string): Record<string, unknown> => ({
  metadata: { name },
  spec: {
    ...(claim ? { claimRef: { namespace: 'ns', name: claim } } : {}),
    csi: {
      driver: 'd',
      volumeHandle: name,
      ...(secret ? { nodePublishSecretRef: { namespace: 'ns', name: secret } } : {}),
    },
  },
});

test("the PV populator links a bound volume to its claim, so a node running the claim's pod reaches it, and follows relists and deletes", () => {
  const g = new Graph();
  const pods = podGraphPopulator(g);
  const pvs = pvGraphPopulator(g);
  pods.put({
    metadata: { namespace: 'ns', name: 'db', uid: 'u' },
    spec: { nodeName: 'n1', volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] },
  });
  pvs.replace([pv('pv1', 'data', 'creds'), pv('pv2')]);
  assert.ok(g.hasPathFrom('n1', 'pv', '', 'pv1'));
  assert.ok(g.hasPathFrom('n1', 'secret', 'ns', 'creds'), 'node <- pod <- pvc <- pv <- secret');
  assert.ok(!g.hasPathFrom('n1', 'pv', '', 'pv2'), 'an unbound volume reaches no node');
  pvs.replace([pv('pv2')]);
  assert.ok(!g.hasPathFrom('n1', 'pv', '', 'pv1'), 'a volume gone in a relist leaves the graph');
  pvs.put(pv('pv2', 'data'));
  assert.ok(g.hasPathFrom('n1', 'pv', '', 'pv2'));
  pvs.delete(pv('pv2', 'data'));
  assert.ok(!g.hasPathFrom('n1', 'pv', '', 'pv2'));
});
