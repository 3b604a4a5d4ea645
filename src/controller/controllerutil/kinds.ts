/** The apiVersion/kind pairs the workload controllers stamp on owner references and Events. */

/** apps/v1 ReplicaSet's apiVersion and kind. */
export const KIND_REPLICASET = { apiVersion: 'apps/v1', kind: 'ReplicaSet' } as const;
/** apps/v1 Deployment's apiVersion and kind. */
export const KIND_DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
