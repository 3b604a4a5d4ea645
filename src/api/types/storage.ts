/** storage.k8s.io/v1 StorageClass. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject } from '../types.js';

/** storage.k8s.io/v1 StorageClass (cluster-scoped); its fields sit at the top level, as upstream's. */
export interface StorageClass extends KubeObject {
  provisioner: string;
  parameters?: Record<string, string>;
  /** Delete (the default) or Retain. */
  reclaimPolicy?: string;
  mountOptions?: string[];
  allowVolumeExpansion?: boolean;
  /** Immediate (the default) or WaitForFirstConsumer. */
  volumeBindingMode?: string;
  allowedTopologies?: { matchLabelExpressions?: { key: string; values: string[] }[] }[];
}
