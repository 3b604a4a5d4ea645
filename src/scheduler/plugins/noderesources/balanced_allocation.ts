/** NodeResourcesBalancedAllocation: prefers nodes where CPU and memory would be used in equal fractions. */
import type { ScorePlugin } from '../../framework/interface.js';
import { MAX_NODE_SCORE } from '../helper/normalize.js';

/** The plugin name. */
export const NAME = 'NodeResourcesBalancedAllocation';

/** Scores 100 × (1 − standard deviation of the CPU and memory fractions). */
export function balancedAllocation(): ScorePlugin {
  return {
    name: NAME,
    score(_s, pod, node) {
      const a = node.allocatable;
      if (a.milliCPU <= 0 || a.memory <= 0) return 0;
      const cpu = Math.min(1, (node.nonZeroCPU + pod.nonZeroCPU) / a.milliCPU);
      const mem = Math.min(1, (node.nonZeroMemory + pod.nonZeroMemory) / a.memory);
      // With two resources the standard deviation is half their difference.
      return Math.floor((1 - Math.abs(cpu - mem) / 2) * MAX_NODE_SCORE);
    },
  };
}
