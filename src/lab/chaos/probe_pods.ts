/**
 * A few bare pods created right after a scheduler is killed: the time until all of them are bound (spec.nodeName
 * set) shows that scheduling goes on once a standby has taken the Lease over. They carry their own label, not the
 * lab's, so the load's object counts never see them, and are deleted afterwards.
 */
import { RESOURCES, type KubeObject, type RESTClient } from '../../client/index.js';

const PROBE_LABEL = 'kscale.io/chaos-probe';

/** How many probe pods a fault creates. */
export const PROBE_PODS = 5;

/** A pause pod like the lab's (small requests, 1 s grace), labelled with its probe `group`. */
function probePod(namespace: string, name: string, group: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { [PROBE_LABEL]: group } },
    spec: {
      containers: [
        { name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10M' } } },
      ],
      terminationGracePeriodSeconds: 1,
    },
  } as KubeObject;
}

/**
 * Creates `<group>-0` … `<group>-<count-1>`, each retried until acknowledged or `deadline` (performance.now()),
 * and returns the names acknowledged.
 */
export async function createProbePods(
  client: RESTClient,
  namespace: string,
  group: string,
  count: number,
  deadline: number,
): Promise<string[]> {
  const made: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${group}-${i}`;
    while (performance.now() < deadline) {
      const ok = await client
        .resource(RESOURCES.pods)
        .create(probePod(namespace, name, group))
        .then(() => true)
        .catch(() => false);
      if (ok) {
        made.push(name);
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return made;
}

/** How many of the group's pods are bound to a node (one LIST); 0 while the API does not answer. */
export async function boundProbePods(client: RESTClient, namespace: string, group: string): Promise<number> {
  try {
    const list = await client.resource(RESOURCES.pods).list({ namespace, labelSelector: `${PROBE_LABEL}=${group}` });
    return list.items.filter((p) => ((p as { spec?: { nodeName?: string } }).spec?.nodeName ?? '') !== '').length;
  } catch {
    return 0;
  }
}

/** Deletes the probe pods at once (grace 0); a failure is ignored, the namespace is the lab's. */
export async function deleteProbePods(client: RESTClient, namespace: string, names: readonly string[]): Promise<void> {
  for (const name of names)
    await client
      .resource(RESOURCES.pods)
      .delete(name, { namespace, gracePeriodSeconds: 0 })
      .catch(() => undefined);
}
