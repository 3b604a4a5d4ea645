/** The etcd v3 storage backend: kube-apiserver's --etcd-servers. */
export { Etcd3Storage, type Etcd3StorageOptions } from './store.js';
export { COMPACT_REV_KEY } from './maintenance.js';
export type { EtcdTLS } from './client.js';
