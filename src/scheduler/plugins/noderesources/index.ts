/** The node resources plugins. */
export { nodeResourcesFit, NAME as FIT, type ScoringStrategy } from './fit.js';
export { balancedAllocation, NAME as BALANCED_ALLOCATION } from './balanced_allocation.js';
