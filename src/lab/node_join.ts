/**
 * The lab's `--node-join csr`: like `kubeadm token create` before `kubeadm join`, a bootstrap token
 * Secret in kube-system (in kubeadm's default-node-token group, so csrapproving auto-approves its
 * nodes' CSRs) and a bootstrap kubeconfig carrying it, which the fleets use as --bootstrap-kubeconfig.
 */
import { randomInt } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { RESOURCES, type RESTClient } from '../client/index.js';
import { bootstrapTokenSecret, type Secret } from '../api/index.js';
import type { LabConfig } from './config.js';

/** How the lab's hollow nodes authenticate: csr (each its own certificate) or shared (the admin kubeconfig). */
export type NodeJoinMode = 'csr' | 'shared';

/**
 * How this run's nodes join: csr (the default) unless the run cannot carry it, as on the plain-HTTP --insecure
 * port (no TLS, no client certificates; the security experiment's B side) or with one shared pod watch for the
 * fleet (it needs one credential that sees every node's pods): those fall back to shared.
 */
export function nodeJoinOf(c: LabConfig): NodeJoinMode {
  return c.fleet.nodeJoin === 'csr' && !c.server.insecure && c.fleet.podWatch !== 'shared' ? 'csr' : 'shared';
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const random = (n: number): string => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

/** Creates a bootstrap token and writes `file`, the admin kubeconfig with that token instead of the admin's certificate. */
export async function writeBootstrapKubeconfig(
  client: RESTClient,
  adminKubeconfig: string,
  file: string,
): Promise<void> {
  const id = random(6);
  const secret = random(16);
  const token = bootstrapTokenSecret(id, secret, ['system:bootstrappers:kubeadm:default-node-token']);
  await client.resource<Secret>(RESOURCES.secrets).create(token, { namespace: 'kube-system' });
  const admin = readFileSync(adminKubeconfig, 'utf8');
  const text = admin.replace(
    / {4}client-certificate-data: .*\n {4}client-key-data: .*\n/,
    `    token: ${id}.${secret}\n`,
  );
  if (text === admin)
    throw new Error(`--node-join csr needs a secure server: ${adminKubeconfig} holds no client certificate`);
  writeFileSync(file, text, { mode: 0o600 });
}
