/** Quota evaluation shared by the ResourceQuota admission plugin and the resourcequota controller. */
export * from './names.js';
export * from './usage.js';
export * from './evaluator.js';
export * from './defaults.js';
