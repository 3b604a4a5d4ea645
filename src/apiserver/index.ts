/** The API server component's public surface. */
export { ApiServer, type ApiServerOptions, type SecureServingOptions } from './server.js';
export {
  kubeconfigYAML,
  secureKubeconfigYAML,
  writeKubeconfig,
  writeSecureKubeconfig,
  type SecureKubeconfig,
} from './kubeconfig.js';
