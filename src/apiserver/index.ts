/** The API server component's public surface. */
export { ApiServer, type ApiServerOptions } from './server.js';
export { kubeconfigYAML, writeKubeconfig } from './kubeconfig.js';
