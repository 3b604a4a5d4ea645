/**
 * What the node lifecycle process tests share: a Ready node with its Lease,
 * written as a kubelet would, and `kscale controller-manager` started with
 * short periods (monitor 1 s, grace 4 s, eviction 1 node/s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { KSCALE } from './harness.js';
import { RESOURCES, type RESTClient } from '../../src/client/index.js';
import {
  formatMicroTimestamp,
  formatTimestamp,
  NAMESPACE_NODE_LEASE,
  type Lease,
  type Node,
} from '../../src/api/index.js';

/** Creates a Ready node and its Lease, renewed now. */
export async function addReadyNode(
  client: RESTClient,
  name: string,
  labels: Record<string, string> = {},
): Promise<void> {
  const nodes = client.resource<Node>(RESOURCES.nodes);
  const node = await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: {} });
  const t = formatTimestamp(Date.now());
  node.status = {
    conditions: [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: t, lastTransitionTime: t },
    ],
  };
  await nodes.updateStatus(node);
  await client.resource<Lease>(RESOURCES.leases).create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: NAMESPACE_NODE_LEASE },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTimestamp(Date.now()) },
  });
}

/** Starts `kscale controller-manager` with short node lifecycle periods; resolves once it says it started. */
export async function startShortPeriodControllerManager(
  kubeconfig: string,
  onStderr: (s: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChildProcess> {
  const cm = spawn(
    process.execPath,
    [
      KSCALE,
      'controller-manager',
      '--kubeconfig',
      kubeconfig,
      '--node-monitor-period',
      '1s',
      '--node-monitor-grace-period',
      '4s',
      '--node-eviction-rate',
      '1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let err = '';
  cm.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    onStderr(d.toString());
  });
  await new Promise<void>((resolve, reject) => {
    cm.stdout!.on('data', (d: Buffer) => d.toString().includes('controller-manager started') && resolve());
    cm.once('exit', (code) => reject(new Error(`controller-manager exited with ${code}: ${err}`)));
  });
  return cm;
}
