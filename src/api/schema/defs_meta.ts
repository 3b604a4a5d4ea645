/** ObjectMeta and the other meta/v1 structs the built-in kinds embed. */
import { condition, type StructDesc } from './dsl.js';

/** meta/v1 definitions by short name. */
export const META_DEFS: Record<string, StructDesc> = {
  'meta.ObjectMeta': {
    name: 'string',
    generateName: 'string',
    namespace: 'string',
    selfLink: 'string',
    uid: 'string',
    resourceVersion: 'string',
    generation: 'int64',
    creationTimestamp: 'Time',
    deletionTimestamp: 'Time',
    deletionGracePeriodSeconds: 'int64',
    labels: 'map[string]',
    annotations: 'map[string]',
    ownerReferences: '[]meta.OwnerReference@uid',
    finalizers: '[]string@',
    managedFields: '[]meta.ManagedFieldsEntry',
  },
  'meta.OwnerReference': {
    apiVersion: 'string',
    kind: 'string',
    name: 'string',
    uid: 'string',
    controller: 'boolean',
    blockOwnerDeletion: 'boolean',
  },
  // fieldsV1 is opaque JSON upstream too (FieldsV1 is a raw byte string on the wire).
  'meta.ManagedFieldsEntry': {
    manager: 'string',
    operation: 'string',
    apiVersion: 'string',
    time: 'Time',
    fieldsType: 'string',
    fieldsV1: 'object',
    subresource: 'string',
  },
  'meta.LabelSelector': { matchLabels: 'map[string]', matchExpressions: '[]meta.LabelSelectorRequirement' },
  'meta.LabelSelectorRequirement': { key: 'string', operator: 'string', values: '[]string' },
  'meta.Condition': condition({ observedGeneration: 'int64' }),
  'meta.ListMeta': { selfLink: 'string', resourceVersion: 'string', continue: 'string', remainingItemCount: 'int64' },
  'meta.Preconditions': { uid: 'string', resourceVersion: 'string' },
  'meta.DeleteOptions': {
    kind: 'string',
    apiVersion: 'string',
    gracePeriodSeconds: 'int64',
    preconditions: 'meta.Preconditions',
    orphanDependents: 'boolean',
    propagationPolicy: 'string',
    dryRun: '[]string',
    ignoreStoreReadErrorWithClusterBreakingPotential: 'boolean',
  },
};
