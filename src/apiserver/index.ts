/** The API server component's public surface. */
export { ApiServer, type ApiServerOptions, type SecureServingOptions } from './server.js';
export { SlowRequestLog, DEFAULT_SLOW_REQUEST_MS } from './request_trace.js';
export { StallMonitor } from './stall_monitor.js';
export {
  DEFAULT_MAX_BUFFERED_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_WATCHES_PER_USER,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from './serving_limits.js';
export {
  kubeconfigYAML,
  secureKubeconfigYAML,
  writeKubeconfig,
  writeSecureKubeconfig,
  type SecureKubeconfig,
} from './kubeconfig.js';
