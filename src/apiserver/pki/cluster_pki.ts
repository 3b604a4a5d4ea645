/**
 * One PKI for several API servers and an etcd cluster, made once and copied
 * to each machine, as kubeadm's /etc/kubernetes/pki is shared between
 * control-plane nodes: the API servers' CAs, admin and component client
 * certificates and ServiceAccount signing key (so a token or kubeconfig from
 * one server is good at every other), and etcd's own CA with a serving and
 * peer certificate per member and the API server's etcd client certificate.
 * Each server still issues its own serving certificate from the shared CA on
 * first start, with its own addresses and the names given here.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateSigningKey } from '../serviceaccount/index.js';
import { generateCA, issueCert } from './certs.js';
import {
  COMPONENT_USERS,
  loadOrCreate,
  loadOrCreateComponentCert,
  loadOrCreateServerPKI,
  type Component,
} from './server_pki.js';

/** An etcd member: its name and the addresses (IPs or DNS names) its certificate must carry. */
export interface EtcdMemberNames {
  name: string;
  addresses: readonly string[];
}

/** What `kscale certs` makes. */
export interface ClusterPKIOptions {
  /** The directory that becomes every server's --cert-dir. */
  dir: string;
  /** Extra names for the serving certificates: the load balancer's and each server's (upstream's --tls-san). */
  sans: readonly string[];
  etcdMembers: readonly EtcdMemberNames[];
}

/** The files a server and an etcd member are started with, relative to nothing: absolute paths under `dir`. */
export interface ClusterPKIFiles {
  certDir: string;
  serviceAccountKey: string;
  etcdCA: string;
  /** kube-apiserver's --etcd-certfile and --etcd-keyfile. */
  etcdClientCert: string;
  etcdClientKey: string;
  /** Per member: its --cert-file/--key-file, also its --peer-cert-file/--peer-key-file. */
  etcdMembers: { name: string; cert: string; key: string }[];
}

const LEAF_DAYS = 365;
const ETCD_DIR = 'etcd';

/** Creates what is missing under `dir` and returns the paths; existing CAs and keys are kept. */
export async function createClusterPKI(o: ClusterPKIOptions): Promise<ClusterPKIFiles> {
  const pki = await loadOrCreateServerPKI(o.dir, o.sans);
  for (const c of Object.keys(COMPONENT_USERS) as Component[]) await loadOrCreateComponentCert(o.dir, pki.clientCA, c);
  const serviceAccountKey = join(o.dir, 'service-account.key');
  loadOrCreateSigningKey(serviceAccountKey);
  const etcdDir = join(o.dir, ETCD_DIR);
  mkdirSync(etcdDir, { recursive: true, mode: 0o700 });
  const etcdCA = await loadOrCreate(etcdDir, 'ca', () => generateCA('kscale-etcd-ca'));
  // kubeadm's apiserver-etcd-client.crt: the API server as an etcd client.
  await loadOrCreate(o.dir, 'apiserver-etcd-client', () =>
    issueCert(etcdCA, { commonName: 'kube-apiserver-etcd-client', usages: ['client'], validityDays: LEAF_DAYS }),
  );
  const members = [];
  for (const m of o.etcdMembers) {
    const names = [...new Set([m.name, ...m.addresses, 'localhost', '127.0.0.1'])];
    // One certificate serves clients and peers (server and client usage), as etcd's guide allows.
    await loadOrCreate(etcdDir, m.name, () =>
      issueCert(etcdCA, { commonName: m.name, altNames: names, usages: ['server', 'client'], validityDays: LEAF_DAYS }),
    );
    members.push({ name: m.name, cert: join(etcdDir, `${m.name}.crt`), key: join(etcdDir, `${m.name}.key`) });
  }
  return {
    certDir: o.dir,
    serviceAccountKey,
    etcdCA: join(etcdDir, 'ca.crt'),
    etcdClientCert: join(o.dir, 'apiserver-etcd-client.crt'),
    etcdClientKey: join(o.dir, 'apiserver-etcd-client.key'),
    etcdMembers: members,
  };
}

/** Parses `name=addr1,addr2` (an etcd member and its addresses); the name alone means its addresses are loopback. */
export function parseEtcdMember(v: string): EtcdMemberNames {
  const [name, addrs] = v.split('=', 2) as [string, string | undefined];
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name))
    throw new Error(`etcd member name ${JSON.stringify(name)} must be a DNS label`);
  const addresses = (addrs ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  return { name, addresses };
}
