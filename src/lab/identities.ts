/**
 * Identities the throttling experiment needs on the secure port. On the lab's
 * plain port every client is system:masters, which API Priority and Fairness
 * exempts, so neither the fleet's heartbeats nor a noisy neighbour would ever
 * be classified. Here the fleet gets a static token of a user in system:nodes
 * (upstream's system-node-high FlowSchema: its Leases go to node-high), and
 * the neighbour is a real ServiceAccount with a TokenRequest token (upstream's
 * service-accounts FlowSchema: workload-low).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { RESOURCES, type RESTClient } from '../client/index.js';

/** The fleet's user: in system:nodes for APF, and in kubeadm:cluster-admins (bound to cluster-admin) for RBAC, since one identity stands for every node and the Node authorizer allows a kubelet only its own objects. */
export const FLEET_USER = 'kscale-lab-fleet';
const FLEET_GROUPS = ['system:nodes', 'kubeadm:cluster-admins'];
/** The noisy neighbour's namespace and ServiceAccount. */
export const NOISY_NAMESPACE = 'kscale-lab-noisy';
export const NOISY_SERVICE_ACCOUNT = 'agent';

/** Writes a --token-auth-file with the fleet's token; returns the token. */
export function writeTokenAuthFile(file: string): string {
  const token = randomBytes(24).toString('hex');
  writeFileSync(file, `${token},${FLEET_USER},${FLEET_USER},"${FLEET_GROUPS.join(',')}"\n`, { mode: 0o600 });
  return token;
}

/** Writes a copy of the secure admin kubeconfig `from` whose user is the bearer `token` instead of the admin's certificate. */
export function writeTokenKubeconfig(from: string, to: string, token: string): void {
  const doc = parse(readFileSync(from, 'utf8')) as { users?: { name: string; user: Record<string, unknown> }[] };
  const server = (doc as { clusters?: { cluster?: { server?: string } }[] }).clusters?.[0]?.cluster?.server ?? '';
  if (!server.startsWith('https:')) throw new Error(`${from} is not a secure-port kubeconfig (server ${server})`);
  for (const u of doc.users ?? []) u.user = { token };
  writeFileSync(to, stringify(doc), { mode: 0o600 });
}

const RBAC = (resource: string) =>
  ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource, namespaced: false }) as const;

/**
 * Creates the neighbour's namespace and ServiceAccount, lets it list pods
 * and write ConfigMaps and Events (a ClusterRole bound to it, as an agent's
 * chart would), and returns a token for it from the TokenRequest API.
 */
export async function noisyNeighbourToken(admin: RESTClient): Promise<string> {
  const name = 'kscale-lab-noisy-neighbour';
  await admin
    .resource(RESOURCES.namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NOISY_NAMESPACE } });
  await admin.resource(RESOURCES.serviceaccounts).create({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: NOISY_SERVICE_ACCOUNT, namespace: NOISY_NAMESPACE },
  });
  await admin.resource(RBAC('clusterroles')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['configmaps', 'events'], verbs: ['get', 'list', 'create', 'update', 'patch'] },
    ],
  } as never);
  await admin.resource(RBAC('clusterrolebindings')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: NOISY_SERVICE_ACCOUNT, namespace: NOISY_NAMESPACE }],
  } as never);
  const tr = await admin.request<{ status?: { token?: string } }>({
    method: 'POST',
    path: admin.resource(RESOURCES.serviceaccounts).path(NOISY_NAMESPACE, NOISY_SERVICE_ACCOUNT, 'token'),
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 86_400 } },
  });
  const token = tr.status?.token;
  if (token === undefined || token === '') throw new Error('TokenRequest for the noisy neighbour returned no token');
  return token;
}
