/** The typed API kinds, one file per API group. */
export * from './core.js';
export * from './apps.js';
export * from './batch.js';
export * from './coordination.js';
export * from './discovery.js';
export * from './policy.js';
export * from './scheduling.js';
export * from './audit.js';
export * from './certificates.js';
export * from './flowcontrol.js';
export * from './rbac.js';
export * from './authorization.js';
export * from './authentication.js';
export * from './apiextensions.js';
export * from './meta.js';
export * from './quota.js';
