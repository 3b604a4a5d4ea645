/**
 * The secure port's flags for `kscale server`, with upstream's and k3s's
 * names: certificates generated under the data dir on first start (k3s), or
 * brought with --tls-cert-file, --tls-private-key-file and --client-ca-file
 * (kube-apiserver).
 */
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecureKubeconfig, type SecureKubeconfig, type SecureServingOptions } from '../apiserver/index.js';
import {
  COMPONENT_USERS,
  loadOrCreateComponentCert,
  loadOrCreateServerPKI,
  type Component,
} from '../apiserver/pki/server_pki.js';

/** The secure-serving flags as parsed. */
export interface SecureServingFlags {
  dataDir: string;
  /** kube-apiserver's --cert-dir: where the generated certificates live (default <data-dir>/tls). */
  certDir?: string;
  bindAddress: string;
  /** The first address of --service-cluster-ip-range: the `kubernetes` Service's ClusterIP, a SAN. */
  kubernetesServiceIP: string;
  tlsSANs: readonly string[];
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCAFile?: string;
  http2MaxStreamsPerConnection: number;
  goawayChance: number;
}

type KubeconfigBody = Omit<SecureKubeconfig, 'server'>;

/** What the server serves with, and what its kubeconfigs carry (without the server URL). */
export interface SecureServingSetup {
  serving: SecureServingOptions;
  /** The everyday admin (kubeadm:cluster-admins); without a client certificate when --client-ca-file is one's own. */
  kubeconfig: KubeconfigBody;
  /** The break-glass admin (system:masters), when kscale holds the client CA's key. */
  superAdmin?: KubeconfigBody;
  /** A component's kubeconfig body, when kscale holds the client CA's key. */
  component?: (c: Component) => Promise<KubeconfigBody>;
}

/** Loads or generates the certificates; throws with the file at fault. */
export async function secureServingSetup(f: SecureServingFlags): Promise<SecureServingSetup> {
  if ((f.tlsCertFile === undefined) !== (f.tlsPrivateKeyFile === undefined)) {
    throw new Error('--tls-cert-file and --tls-private-key-file go together');
  }
  if (f.goawayChance < 0 || f.goawayChance > 0.02)
    throw new Error('--goaway-chance must be between 0 and 0.02, as upstream');
  const sans = [f.kubernetesServiceIP, ...f.tlsSANs];
  if (f.bindAddress !== '0.0.0.0' && f.bindAddress !== '::') sans.push(f.bindAddress);
  const certDir = f.certDir ?? join(f.dataDir, 'tls');
  const pki = await loadOrCreateServerPKI(certDir, sans);
  const cert = f.tlsCertFile === undefined ? pki.serving.certPEM : readFileSync(f.tlsCertFile, 'utf8');
  const key = f.tlsPrivateKeyFile === undefined ? pki.serving.keyPEM : readFileSync(f.tlsPrivateKeyFile, 'utf8');
  const clientCA = f.clientCAFile === undefined ? pki.clientCA.certPEM : readFileSync(f.clientCAFile, 'utf8');
  // With a serving certificate of one's own, the kubeconfig trusts the last certificate of its chain;
  // with a client CA of one's own, kscale holds no key to sign the admin's certificate.
  const caPEM = f.tlsCertFile === undefined ? pki.serverCA.certPEM : lastCertificate(cert);
  const admin =
    f.clientCAFile === undefined ? { clientCertPEM: pki.admin.certPEM, clientKeyPEM: pki.admin.keyPEM } : {};
  const signed = f.clientCAFile === undefined;
  return {
    ...(signed
      ? {
          superAdmin: { caPEM, clientCertPEM: pki.superAdmin.certPEM, clientKeyPEM: pki.superAdmin.keyPEM },
          component: async (c: Component) => {
            const pair = await loadOrCreateComponentCert(certDir, pki.clientCA, c);
            return { caPEM, clientCertPEM: pair.certPEM, clientKeyPEM: pair.keyPEM, name: c };
          },
        }
      : {}),
    serving: {
      cert,
      key,
      clientCA,
      http2MaxStreamsPerConnection: f.http2MaxStreamsPerConnection,
      goawayChance: f.goawayChance,
    },
    kubeconfig: { caPEM, ...admin },
  };
}

/** Which kubeconfigs to write, and where (kubeadm's admin.conf, super-admin.conf and per-component .conf files). */
export interface KubeconfigTargets {
  admin?: string;
  superAdmin?: string;
  /** A directory that receives controller-manager.conf, scheduler.conf and proxy.conf. */
  componentsDir?: string;
}

/** Writes the requested kubeconfigs for `server`, each 0600; throws when kscale holds no key to sign one. */
export async function writeServerKubeconfigs(
  setup: SecureServingSetup,
  server: string,
  t: KubeconfigTargets,
): Promise<void> {
  if (t.admin !== undefined) writeSecureKubeconfig(t.admin, { server, ...setup.kubeconfig });
  if (t.superAdmin !== undefined) {
    if (setup.superAdmin === undefined) throw new Error('--write-super-admin-kubeconfig needs the generated client CA');
    writeSecureKubeconfig(t.superAdmin, { server, ...setup.superAdmin, name: 'kscale-super-admin' });
  }
  if (t.componentsDir !== undefined) {
    if (setup.component === undefined) throw new Error('--write-component-kubeconfigs needs the generated client CA');
    mkdirSync(t.componentsDir, { recursive: true, mode: 0o700 });
    chmodSync(t.componentsDir, 0o700);
    for (const c of Object.keys(COMPONENT_USERS) as Component[])
      writeSecureKubeconfig(join(t.componentsDir, `${c}.conf`), { server, ...(await setup.component(c)) });
  }
}

function lastCertificate(chain: string): string {
  const certs = chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (certs === null) throw new Error('--tls-cert-file holds no PEM certificate');
  return `${certs[certs.length - 1]}\n`;
}

/** The first host address of a CIDR (10.96.0.0/12 → 10.96.0.1), as upstream picks the `kubernetes` Service's IP. */
export function firstServiceIP(cidr: string): string {
  const [base] = cidr.split('/');
  const parts = base.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return base;
  const n = ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3] + 1;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}
