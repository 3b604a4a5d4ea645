// Request authentication: client certificates, bearer tokens, anonymous.
export { authenticateRequest, isSecureRequest, type AuthenticatorOptions, type TokenAuthenticator } from './request.js';
export { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNSECURED_USER, type UserInfo } from './user.js';
export { userFromCertificate } from './x509.js';
export { serveSelfSubjectReview } from './selfsubjectreview.js';
export { serviceAccountTokenAuthenticator, type ServiceAccountTokenOptions } from './serviceaccount_token.js';
export { parseTokenFile, tokenFileAuthenticator } from './token_file.js';
export { BootstrapTokenSecrets, bootstrapTokenAuthenticator } from './bootstrap_token.js';
export { serveTokenReview } from './tokenreview.js';
