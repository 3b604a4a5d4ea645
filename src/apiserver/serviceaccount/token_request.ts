/**
 * The TokenRequest (authentication.k8s.io/v1) body: defaults and validation,
 * like upstream's SetDefaults_TokenRequestSpec, ValidateTokenRequest and the
 * name and namespace checks of TokenREST.
 */
import { badRequest, invalid } from '../../api/index.js';
import type { StatusCause } from '../../api/index.js';
import type { Obj } from '../object.js';

/** The TokenRequest's group/version and kind. */
export const TOKEN_REQUEST_API_VERSION = 'authentication.k8s.io/v1';
export const TOKEN_REQUEST_KIND = 'TokenRequest';

/** spec.expirationSeconds when the request gives none (1 h). */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
/** The shortest token a request may ask for (10 min). */
export const MIN_EXPIRATION_SECONDS = 600;
/** The longest token a request may ask for (2^32 s). */
export const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** spec.boundObjectRef. */
export interface BoundObjectReference {
  kind: string;
  apiVersion: string;
  name: string;
  uid: string;
}

/** A TokenRequest's spec after defaulting. */
export interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: BoundObjectReference;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Decodes and defaults a TokenRequest body: kind and apiVersion may be omitted
 * (the endpoint's are assumed) and expirationSeconds defaults to 3600. Empty
 * audiences are left empty; the caller fills in the server's audiences, as
 * upstream does. A body of the wrong shape is 400.
 */
export function parseTokenRequest(body: unknown): { obj: Obj; spec: TokenRequestSpec } {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('the body of the request was not a JSON object');
  const obj = body as Obj;
  if (obj.kind === undefined || obj.kind === '') obj.kind = TOKEN_REQUEST_KIND;
  if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = TOKEN_REQUEST_API_VERSION;
  if (obj.apiVersion !== TOKEN_REQUEST_API_VERSION) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${TOKEN_REQUEST_API_VERSION})`,
    );
  }
  if (obj.kind !== TOKEN_REQUEST_KIND)
    throw badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${TOKEN_REQUEST_KIND})`,
    );
  if (
    obj.metadata !== undefined &&
    (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata))
  )
    throw badRequest('metadata must be an object');
  const raw = (obj.spec ?? {}) as Obj;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('spec must be an object');
  const audiences = raw.audiences ?? [];
  if (!Array.isArray(audiences) || audiences.some((a) => typeof a !== 'string'))
    throw badRequest('spec.audiences must be a list of strings');
  const exp = raw.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  if (typeof exp !== 'number' || !Number.isInteger(exp)) throw badRequest('spec.expirationSeconds must be an integer');
  const spec: TokenRequestSpec = { audiences: [...(audiences as string[])], expirationSeconds: exp };
  const ref = raw.boundObjectRef as Obj | undefined | null;
  if (ref !== undefined && ref !== null) {
    spec.boundObjectRef = {
      kind: str(ref.kind),
      apiVersion: str(ref.apiVersion),
      name: str(ref.name),
      uid: str(ref.uid),
    };
  }
  return { obj, spec };
}

/** Like upstream's ValidateTokenRequest: expirationSeconds in [600, 2^32], else 422 Invalid on spec.expirationSeconds (the name is empty, as upstream's). */
export function validateTokenRequest(spec: TokenRequestSpec): void {
  const exp = spec.expirationSeconds;
  const causes: StatusCause[] = [];
  const texts: string[] = [];
  const fail = (why: string): void => {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${exp}: ${why}`,
      field: 'spec.expirationSeconds',
    });
    texts.push(`spec.expirationSeconds: Invalid value: ${exp}: ${why}`);
  };
  if (exp < MIN_EXPIRATION_SECONDS) fail('may not specify a duration less than 10 minutes');
  if (exp > MAX_EXPIRATION_SECONDS) fail('may not specify a duration larger than 2^32 seconds');
  if (causes.length > 0) throw invalid({ group: 'authentication.k8s.io', kind: TOKEN_REQUEST_KIND }, '', causes, texts);
}

/** Like upstream's TokenREST: a metadata.name or metadata.namespace in the body must match the URL's (422 Invalid, named after the ServiceAccount). */
export function checkTokenRequestTarget(obj: Obj, name: string, namespace: string): void {
  const m = (obj.metadata ?? {}) as Obj;
  for (const [field, want, what] of [
    ['name', name, 'name'],
    ['namespace', namespace, 'namespace'],
  ] as const) {
    const got = m[field];
    if (typeof got === 'string' && got !== '' && got !== want) {
      const why = `must match the service account ${what} if specified`;
      throw invalid(
        { group: 'authentication.k8s.io', kind: TOKEN_REQUEST_KIND },
        name,
        [{ reason: 'FieldValueInvalid', message: `Invalid value: "${got}": ${why}`, field: `metadata.${field}` }],
        [`metadata.${field}: Invalid value: "${got}": ${why}`],
      );
    }
  }
}
