/** The certificates controllers (pkg/controller/certificates): csrapproving, csrsigning, csrcleaner. */
export { CertificateController, type CSRHandler } from './certificate_controller.js';
export { CSR_APPROVING_CONTROLLER, newCSRApprovingController, SARApprover } from './approver.js';
export { CSR_SIGNING_CONTROLLER, CSRSigner, newCSRSigningController } from './signer.js';
export { CSR_CLEANER_CONTROLLER, CSRCleanerController, csrCleanupReason } from './cleaner.js';
export { CertificateAuthority } from './authority.js';
export { DEFAULT_CSR_SIGNING_OPTIONS, type CSRSigningControllerOptions } from './config.js';
