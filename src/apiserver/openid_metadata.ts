/**
 * ServiceAccount issuer discovery, like kube-apiserver's: the OIDC
 * configuration at /.well-known/openid-configuration and the verification
 * keys at /openid/v1/jwks, so a relying party can check kscale's tokens.
 */
import type { ServerResponse } from 'node:http';
import type { RequestInfo } from './request_info.js';
import { writeJSON } from './responsewriters.js';
import type { ServiceAccountTokenIssuer } from './serviceaccount/index.js';

/** The two discovery paths. */
export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** Serves the discovery documents with upstream's content types and an hour of caching; false for other paths. */
export function serveOpenIDMetadata(
  res: ServerResponse,
  info: RequestInfo,
  issuer: ServiceAccountTokenIssuer,
): boolean {
  if (info.verb !== 'get') return false;
  const p = info.path.replace(/\/+$/, '');
  if (p !== OPENID_CONFIGURATION_PATH && p !== JWKS_PATH) return false;
  res.setHeader('Cache-Control', 'public, max-age=3600');
  if (p === OPENID_CONFIGURATION_PATH) writeJSON(res, 200, issuer.openIDConfiguration());
  else writeJSON(res, 200, issuer.jwks(), 'application/jwk-set+json');
  return true;
}
