/** policy/v1 PodDisruptionBudget. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject, LabelSelector } from '../types.js';

/** policy/v1 PodDisruptionBudgetSpec; the int-or-percent values stay as sent. */
export interface PodDisruptionBudgetSpec {
  minAvailable?: number | string;
  selector?: LabelSelector;
  maxUnavailable?: number | string;
  unhealthyPodEvictionPolicy?: string;
}

/** A metav1.Condition, as PodDisruptionBudgetStatus carries them. */
export interface PodDisruptionBudgetCondition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** policy/v1 PodDisruptionBudgetStatus. */
export interface PodDisruptionBudgetStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: PodDisruptionBudgetCondition[];
}

/** policy/v1 PodDisruptionBudget. */
export interface PodDisruptionBudget extends KubeObject {
  spec?: PodDisruptionBudgetSpec;
  status?: PodDisruptionBudgetStatus;
}
