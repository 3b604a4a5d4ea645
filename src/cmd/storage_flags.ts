/**
 * Opens the storage a component was configured with: the embedded SQLite
 * store under --data-dir (the default), or etcd at --etcd-servers, with
 * --etcd-servers-overrides routing resources (e.g. events) to other etcds.
 */
import { readFileSync } from 'node:fs';
import { Etcd3Storage, type EtcdTLS } from '../storage/etcd3/index.js';
import type { Storage } from '../storage/index.js';
import { openSqliteStorage, type SyncMode } from '../storage/sqlite/index.js';
import { overridePrefix, parseEtcdServersOverrides, RoutedStorage } from '../storage/router.js';

/** Storage flags, with upstream's names where upstream has them. */
export interface StorageFlags {
  dataDir: string;
  etcdServers?: string;
  etcdServersOverrides?: string;
  /** kube-apiserver's --etcd-cafile, --etcd-certfile and --etcd-keyfile: TLS to every etcd server. */
  etcdCAFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  storageSync: SyncMode;
  quotaBackendBytes: number;
  /** Where the embedded store reports slow commits. */
  log?: { warn(fields: Record<string, unknown>, msg: string): void };
}

/** Opens the configured storage; a corrupt or unreadable file throws Unavailable with the path. */
export async function openStorage(f: StorageFlags): Promise<Storage> {
  const tls = etcdTLS(f);
  const etcd = (servers: string): Storage =>
    new Etcd3Storage({
      servers: servers
        .split(/[,;]/)
        .map((s) => s.trim())
        .filter((s) => s !== ''),
      quotaBytes: f.quotaBackendBytes,
      ...(tls === undefined ? {} : { tls }),
    });
  const base =
    f.etcdServers !== undefined && f.etcdServers !== ''
      ? etcd(f.etcdServers)
      : await openSqliteStorage({
          dataDir: f.dataDir,
          sync: f.storageSync,
          quotaBytes: f.quotaBackendBytes,
          ...(f.log === undefined ? {} : { log: f.log }),
        });
  if (f.etcdServersOverrides === undefined || f.etcdServersOverrides === '') return base;
  const seen = new Set<string>();
  const routes = [];
  for (const o of parseEtcdServersOverrides(f.etcdServersOverrides)) {
    const prefix = overridePrefix(o);
    // events and events.k8s.io/events share /registry/events/: route them once.
    if (seen.has(prefix)) continue;
    seen.add(prefix);
    routes.push({ prefix, storage: etcd(o.servers.join(',')) });
  }
  return new RoutedStorage(base, routes);
}

/** The etcd TLS files read, or undefined without --etcd-cafile; throws naming the flag whose file is unreadable. */
function etcdTLS(f: StorageFlags): EtcdTLS | undefined {
  if ((f.etcdCertFile === undefined) !== (f.etcdKeyFile === undefined))
    throw new Error('--etcd-certfile and --etcd-keyfile go together');
  if (f.etcdCAFile === undefined) {
    if (f.etcdCertFile !== undefined) throw new Error('--etcd-certfile needs --etcd-cafile');
    return undefined;
  }
  const read = (flag: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`${flag} ${file}: ${(err as Error).message}`);
    }
  };
  return {
    caPEM: read('--etcd-cafile', f.etcdCAFile),
    ...(f.etcdCertFile === undefined ? {} : { certPEM: read('--etcd-certfile', f.etcdCertFile) }),
    ...(f.etcdKeyFile === undefined ? {} : { keyPEM: read('--etcd-keyfile', f.etcdKeyFile) }),
  };
}
