/**
 * The API server's certificates, generated on first start under the data
 * directory and reused after, as k3s keeps them (server/tls/): a cluster CA
 * that signs the serving certificate, a client CA that signs client
 * certificates, and the admins' client certificates, as kubeadm since 1.29:
 * the everyday admin (`kubernetes-admin` in `kubeadm:cluster-admins`, bound to
 * cluster-admin by RBAC) that `--write-kubeconfig` hands out, and the
 * break-glass super-admin (`kubernetes-super-admin` in `system:masters`). The
 * directory is 0700 and every file 0600.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { altNamesOf, generateCA, issueCert, notAfterOf, subjectOf, type CertKeyPair } from './certs.js';

/** The names every serving certificate carries, as kube-apiserver's self-signed one and k3s's do. */
export const DEFAULT_SERVING_NAMES = [
  '127.0.0.1',
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
] as const;

/** What the secure port serves with and trusts. */
export interface ServerPKI {
  /** The CA clients verify the serving certificate with (a kubeconfig's certificate-authority-data). */
  serverCA: CertKeyPair;
  /** The CA whose client certificates authenticate users. */
  clientCA: CertKeyPair;
  serving: CertKeyPair;
  /** kubernetes-admin, group kubeadm:cluster-admins: authorized by RBAC (kubeadm's admin.conf). */
  admin: CertKeyPair;
  /** kubernetes-super-admin, group system:masters: bypasses authorization (kubeadm's super-admin.conf). */
  superAdmin: CertKeyPair;
}

/** kubeadm's group of everyday admins, bound to cluster-admin by a bootstrap ClusterRoleBinding. */
export const ADMIN_GROUP = 'kubeadm:cluster-admins';

/** The identities of the control-plane components, as kubeadm writes their kubeconfigs. */
export const COMPONENT_USERS = {
  'controller-manager': 'system:kube-controller-manager',
  scheduler: 'system:kube-scheduler',
  proxy: 'system:kube-proxy',
} as const;

/** A component that gets a kubeconfig of its own. */
export type Component = keyof typeof COMPONENT_USERS;

// A leaf this close to expiry is reissued at start, as k3s renews within 90 days.
const RENEW_BEFORE_MS = 90 * 86_400_000;
const LEAF_DAYS = 365;

/**
 * Loads the PKI under `dir`, creating what is missing. The serving certificate is reissued when
 * it lacks one of `altNames` (a new --tls-san) or nears expiry; the CAs are never replaced.
 */
export async function loadOrCreateServerPKI(dir: string, altNames: readonly string[]): Promise<ServerPKI> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const serverCA = await loadOrCreate(dir, 'server-ca', () => generateCA('kscale-server-ca'));
  const clientCA = await loadOrCreate(dir, 'client-ca', () => generateCA('kscale-client-ca'));
  const names = [...new Set([...DEFAULT_SERVING_NAMES, ...altNames])];
  const serving = await loadOrCreate(
    dir,
    'serving-kube-apiserver',
    () =>
      issueCert(serverCA, {
        commonName: 'kube-apiserver',
        altNames: names,
        usages: ['server'],
        validityDays: LEAF_DAYS,
      }),
    (pair) => names.every((n) => altNamesOf(pair.certPEM).includes(n)),
  );
  // A data dir from before the everyday admin left system:masters gets its admin reissued.
  const admin = await loadOrCreateClient(dir, clientCA, 'client-admin', 'kubernetes-admin', [ADMIN_GROUP]);
  const superAdmin = await loadOrCreateClient(dir, clientCA, 'client-super-admin', 'kubernetes-super-admin', [
    'system:masters',
  ]);
  return { serverCA, clientCA, serving, admin, superAdmin };
}

/** A component's client certificate (CN its upstream user, no groups), signed by the client CA and kept under `dir`. */
export function loadOrCreateComponentCert(
  dir: string,
  clientCA: CertKeyPair,
  component: Component,
): Promise<CertKeyPair> {
  const user = COMPONENT_USERS[component];
  return loadOrCreateClient(dir, clientCA, `client-${user.slice('system:'.length)}`, user, []);
}

function loadOrCreateClient(
  dir: string,
  clientCA: CertKeyPair,
  name: string,
  commonName: string,
  organizations: readonly string[],
): Promise<CertKeyPair> {
  return loadOrCreate(
    dir,
    name,
    () => issueCert(clientCA, { commonName, organizations, usages: ['client'], validityDays: LEAF_DAYS }),
    (pair) => sameStrings(subjectOf(pair.certPEM).organizations, organizations),
  );
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** The pair `<dir>/<name>.crt|.key`, made by `make` when missing, no longer `stillGood`, or near expiry. */
export async function loadOrCreate(
  dir: string,
  name: string,
  make: () => Promise<CertKeyPair>,
  stillGood: (p: CertKeyPair) => boolean = () => true,
): Promise<CertKeyPair> {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  if (existsSync(certFile) && existsSync(keyFile)) {
    const pair = { certPEM: readFileSync(certFile, 'utf8'), keyPEM: readFileSync(keyFile, 'utf8') };
    if (stillGood(pair) && notAfterOf(pair.certPEM).getTime() - Date.now() > RENEW_BEFORE_MS) return pair;
  }
  const pair = await make();
  writePrivate(keyFile, pair.keyPEM);
  writePrivate(certFile, pair.certPEM);
  return pair;
}

// Written beside the target and renamed, so a crash never leaves half a key.
function writePrivate(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}
