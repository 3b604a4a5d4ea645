/** The root-ca-cert-publisher controller (pkg/controller/certificates/rootcacertpublisher). */
export { newRootCACertPublisher, ROOT_CA_CERT_PUBLISHER_CONTROLLER, ROOT_CA_CONFIGMAP } from './publisher.js';
