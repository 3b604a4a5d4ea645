/** scheduling.k8s.io/v1 PriorityClass. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject } from '../types.js';

/** scheduling/v1 PriorityClass: a name for a pod priority value. */
export interface PriorityClass extends KubeObject {
  value: number;
  globalDefault?: boolean;
  description?: string;
  /** PreemptLowerPriority (the default) or Never. */
  preemptionPolicy?: string;
}
