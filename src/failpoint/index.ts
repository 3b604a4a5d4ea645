export * from './failpoint.js';
