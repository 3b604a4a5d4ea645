/**
 * A kubeconfig for the plain-HTTP listener that kubectl and
 * @kubernetes/client-node accept as is: client-node refuses http:// unless
 * the cluster says insecure-skip-tls-verify, so it does.
 */
import { writeFileSync } from 'node:fs';

/** The kubeconfig YAML for a server URL. */
export function kubeconfigYAML(server: string, name = 'kscale'): string {
  return kubeconfigDoc(
    name,
    [`    server: ${server}`, '    insecure-skip-tls-verify: true'],
    ['    token: kscale-admin'],
  );
}

/** Writes the kubeconfig with owner-only permissions. */
export function writeKubeconfig(file: string, server: string): void {
  writeFileSync(file, kubeconfigYAML(server), { mode: 0o600 });
}

/** What a kubeconfig for the secure port carries: the CA to verify the server, and a client certificate when there is one. */
export interface SecureKubeconfig {
  server: string;
  caPEM: string;
  clientCertPEM?: string;
  clientKeyPEM?: string;
  name?: string;
}

/** A kubeconfig for the secure port: the server verified against `caPEM` (never insecure-skip-tls-verify), the user its client certificate. */
export function secureKubeconfigYAML(k: SecureKubeconfig): string {
  const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
  const user =
    k.clientCertPEM !== undefined && k.clientKeyPEM !== undefined
      ? [`    client-certificate-data: ${b64(k.clientCertPEM)}`, `    client-key-data: ${b64(k.clientKeyPEM)}`]
      : ['    {}'];
  return kubeconfigDoc(
    k.name ?? 'kscale',
    [`    server: ${k.server}`, `    certificate-authority-data: ${b64(k.caPEM)}`],
    user,
  );
}

/** Writes a secure-port kubeconfig with owner-only permissions. */
export function writeSecureKubeconfig(file: string, k: SecureKubeconfig): void {
  writeFileSync(file, secureKubeconfigYAML(k), { mode: 0o600 });
}

// One cluster, one user, one context named after `name`, with the given cluster and user fields.
function kubeconfigDoc(name: string, cluster: string[], user: string[]): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    ...cluster,
    'users:',
    `- name: ${name}-admin`,
    '  user:',
    ...user,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}-admin`,
    '    namespace: default',
    `current-context: ${name}`,
    '',
  ].join('\n');
}
