/**
 * The ServiceAccount token issuer: kube-apiserver's --service-account-issuer,
 * --api-audiences (defaulting to the issuer) and
 * --service-account-max-token-expiration, with the signing key.
 */
import { randomUUID } from 'node:crypto';
import { serviceAccountClaims, type ClaimsInput } from './claims.js';
import { signJWT } from './jwt.js';
import { publicJWK, type SigningKey } from './signing_key.js';

/** kube-apiserver has no default issuer; kscale uses the in-cluster API URL, the value most clusters set. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** Issuer settings. */
export interface TokenIssuerOptions {
  issuer?: string;
  /** The audiences a TokenRequest without audiences gets (--api-audiences); default [issuer]. */
  audiences?: string[];
  /** --service-account-max-token-expiration in seconds; longer requests are cut to it. 0: no maximum. */
  maxExpirationSeconds?: number;
  key: SigningKey;
}

/** Signs ServiceAccount tokens and publishes the OIDC discovery documents for them. */
export class ServiceAccountTokenIssuer {
  readonly issuer: string;
  readonly audiences: string[];
  readonly maxExpirationSeconds: number;
  readonly key: SigningKey;

  constructor(o: TokenIssuerOptions) {
    this.issuer = o.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER;
    this.audiences = o.audiences !== undefined && o.audiences.length > 0 ? o.audiences : [this.issuer];
    this.maxExpirationSeconds = o.maxExpirationSeconds ?? 0;
    this.key = o.key;
  }

  /** The lifetime a request gets: what it asked for, cut to the maximum as upstream does (no error). */
  effectiveExpiration(requestedSeconds: number): number {
    return this.maxExpirationSeconds > 0 && requestedSeconds > this.maxExpirationSeconds
      ? this.maxExpirationSeconds
      : requestedSeconds;
  }

  /** Builds, signs and returns a token with a fresh jti, and the expiry time in ms. */
  async generateToken(input: Omit<ClaimsInput, 'issuer' | 'id'>): Promise<{ token: string; expiresAtMs: number }> {
    const claims = serviceAccountClaims({ ...input, issuer: this.issuer, id: randomUUID() });
    return { token: await signJWT(claims, this.key), expiresAtMs: claims.exp * 1000 };
  }

  /** The JWKS URI: `<issuer>/openid/v1/jwks`, upstream's default when --service-account-jwks-uri is unset. */
  get jwksURI(): string {
    return `${this.issuer.replace(/\/+$/, '')}/openid/v1/jwks`;
  }

  /** /.well-known/openid-configuration, with upstream's fields. */
  openIDConfiguration(): object {
    return {
      issuer: this.issuer,
      jwks_uri: this.jwksURI,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [this.key.alg],
    };
  }

  /** /openid/v1/jwks: the verification keys. */
  jwks(): { keys: object[] } {
    return { keys: [publicJWK(this.key)] };
  }
}
