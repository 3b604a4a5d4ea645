/**
 * A kubeconfig for the plain-HTTP listener that kubectl and
 * @kubernetes/client-node accept as is: client-node refuses http:// unless
 * the cluster says insecure-skip-tls-verify, so it does.
 */
import { writeFileSync } from 'node:fs';

/** The kubeconfig YAML for a server URL. */
export function kubeconfigYAML(server: string, name = 'kscale'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${server}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${name}-admin`,
    '  user:',
    '    token: kscale-admin',
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

/** Writes the kubeconfig with owner-only permissions. */
export function writeKubeconfig(file: string, server: string): void {
  writeFileSync(file, kubeconfigYAML(server), { mode: 0o600 });
}
