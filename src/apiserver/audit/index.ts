/** The API server's audit: policy, per-request context, backends and metrics (upstream's apiserver/pkg/audit). */
export { Auditor, type AuditConfig, type AuditorOptions } from './auditor.js';
export {
  BlockingLogBackend,
  BufferedLogBackend,
  STDOUT_SINK,
  type AuditBackend,
  type BatchOptions,
  type LogSink,
} from './backend.js';
export { backupName, RotatingLogFile, type RotationOptions } from './log_file.js';
export { AuditMetrics } from './metrics.js';
export {
  loadPolicyFile,
  parsePolicy,
  PolicyRuleEvaluator,
  validatePolicy,
  type AuditAttributes,
  type RequestAuditConfig,
} from './policy.js';
export { AuditContext, noteRequestBody, sourceIPs } from './request.js';
