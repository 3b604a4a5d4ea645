/** ServiceAccount tokens: the signing key, the claims, the issuer and the TokenRequest body. */
export {
  serviceAccountClaims,
  serviceAccountUsername,
  type BoundObjects,
  type ObjectRef,
  type ServiceAccountClaims,
} from './claims.js';
export { signJWT, verifyJWS } from './jwt.js';
export {
  algorithmOf,
  generateSigningKey,
  keyIDOf,
  loadOrCreateSigningKey,
  publicJWK,
  signingKeyFrom,
  type SigningAlgorithm,
  type SigningKey,
} from './signing_key.js';
export { DEFAULT_SERVICE_ACCOUNT_ISSUER, ServiceAccountTokenIssuer, type TokenIssuerOptions } from './token_issuer.js';
export {
  checkTokenRequestTarget,
  parseTokenRequest,
  validateTokenRequest,
  TOKEN_REQUEST_API_VERSION,
  TOKEN_REQUEST_KIND,
  type TokenRequestSpec,
} from './token_request.js';
