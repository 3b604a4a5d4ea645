/** Client-side certificate helpers (client-go's util/certificate): keys, certificate requests and their renewal. */
export { generateKeyAndCSR, type CSRSubject, type KeyAndCSR } from './csr.js';
export {
  CertificateManager,
  CertificatePendingError,
  CertificateRequestError,
  requestCertificate,
  rotationDeadline,
  validity,
  waitForCertificate,
  type Admit,
  type CertificateManagerOptions,
  type CertificateRequest,
  type ClientCertificate,
} from './manager.js';
