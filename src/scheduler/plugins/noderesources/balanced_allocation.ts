/** NodeResourcesBalancedAllocation: prefers nodes where CPU and memory would be used in equal fractions. */
import type { ScorePlugin } from '../../framework/interface.js';
import { H } from '../../framework/node_info.js';
import { MAX_NODE_SCORE } from '../helper/normalize.js';

/** The plugin name. */
export const NAME = 'NodeResourcesBalancedAllocation';

/** Scores 100 × (1 − standard deviation of the CPU and memory fractions). */
export function balancedAllocation(): ScorePlugin {
  return {
    name: NAME,
    score(_s, pod, node) {
      const h = node.h;
      const o = node.o;
      const allocCPU = h[o + H.allocCPU];
      const allocMem = h[o + H.allocMem];
      if (allocCPU <= 0 || allocMem <= 0) return 0;
      const cpu = Math.min(1, (h[o + H.nzCPU] + pod.nonZeroCPU) / allocCPU);
      const mem = Math.min(1, (h[o + H.nzMem] + pod.nonZeroMemory) / allocMem);
      // With two resources the standard deviation is half their difference.
      return Math.floor((1 - Math.abs(cpu - mem) / 2) * MAX_NODE_SCORE);
    },
  };
}
