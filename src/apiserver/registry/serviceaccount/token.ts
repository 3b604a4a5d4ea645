/**
 * POST serviceaccounts/token: issues a ServiceAccount token (TokenRequest,
 * authentication.k8s.io/v1) in upstream TokenREST's order: the body's name and
 * namespace must match the URL, the ServiceAccount must exist, then defaults,
 * validation, the bound object (which must exist and match any uid given), the
 * maximum lifetime, and the signature. Nothing is stored, so dryRun, as
 * upstream, only has its value checked.
 */
import { formatTimestamp } from '../../../api/index.js';
import { badRequest, conflict, isNotFoundError, newStatusError } from '../../../api/index.js';
import { decodeBody, readBody } from '../../body.js';
import { meta, type Obj } from '../../object.js';
import { writeJSON } from '../../responsewriters.js';
import {
  checkTokenRequestTarget,
  parseTokenRequest,
  validateTokenRequest,
  type BoundObjects,
  type ObjectRef,
  type TokenRequestSpec,
} from '../../serviceaccount/index.js';
import { admissionFor, storeOf, type RestContext } from '../../endpoints/context.js';
import { parseDryRun } from '../../endpoints/write.js';

const refOf = (obj: Obj): ObjectRef => ({ name: String(meta(obj).name ?? ''), uid: String(meta(obj).uid ?? '') });

/** Looks up the object a token is bound to; 404 if missing, 409 on a uid mismatch, 400 for an unsupported kind. */
async function boundObjects(ctx: RestContext, saName: string, spec: TokenRequestSpec): Promise<BoundObjects> {
  const ref = spec.boundObjectRef;
  if (ref === undefined) return {};
  const ns = ctx.info.namespace;
  const i = ref.apiVersion.indexOf('/');
  const group = i < 0 ? '' : ref.apiVersion.slice(0, i);
  let found: Obj;
  const bound: BoundObjects = {};
  if (group === '' && ref.kind === 'Pod') {
    found = await storeOf(ctx.services, 'pods').get(ns, ref.name);
    if ((found.spec as Obj | undefined)?.serviceAccountName !== saName) {
      throw badRequest(
        `cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`,
      );
    }
    bound.pod = refOf(found);
    // Like upstream's ServiceAccountTokenPodNodeInfo: a pod token also names the pod's node (without a uid if the node is gone).
    const nodeName = (found.spec as Obj | undefined)?.nodeName;
    if (typeof nodeName === 'string' && nodeName !== '') {
      // Upstream reads it with resourceVersion 0 (from the watch cache), falling back to a live lookup.
      const node = await storeOf(ctx.services, 'nodes')
        .getCachedRef(undefined, nodeName)
        .catch((err: unknown) => {
          if (isNotFoundError(err)) return undefined;
          throw err;
        });
      bound.node = node ?? { name: nodeName, uid: '' };
    }
  } else if (group === '' && ref.kind === 'Node') {
    found = await storeOf(ctx.services, 'nodes').get(undefined, ref.name);
    bound.node = refOf(found);
  } else if (group === '' && ref.kind === 'Secret') {
    found = await storeOf(ctx.services, 'secrets').get(ns, ref.name);
    bound.secret = refOf(found);
  } else {
    // Go's GroupVersionKind.String(): "group/version, Kind=kind".
    const version = i < 0 ? ref.apiVersion : ref.apiVersion.slice(i + 1);
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind}`);
  }
  const uid = String(meta(found).uid ?? '');
  if (ref.uid !== '' && ref.uid !== uid) {
    throw conflict(
      { group, resource: ref.kind },
      ref.name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return bound;
}

/** POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token. */
export async function handleServiceAccountToken(ctx: RestContext): Promise<void> {
  const issuer = ctx.services.tokenIssuer;
  if (issuer === undefined)
    throw newStatusError(500, 'InternalError', 'the server has no service account token issuer');
  const dryRun = parseDryRun(ctx.info.query);
  const { obj, spec } = parseTokenRequest(decodeBody(await readBody(ctx.req), ctx.req.headers['content-type']));
  const { name, namespace } = ctx.info;
  checkTokenRequestTarget(obj, name, namespace);
  const sa = await ctx.store.get(namespace, name);
  if (spec.audiences.length === 0) spec.audiences = [...issuer.audiences];
  const nowMs = ctx.services.clock.now();
  validateTokenRequest(spec);
  // Admission after defaults and validation, as upstream's TokenREST runs createValidation.
  await admissionFor(ctx).run({
    operation: 'CREATE',
    resource: 'serviceaccounts',
    subresource: 'token',
    namespace,
    name,
    object: obj,
    oldObject: null,
    dryRun,
  });
  const bound = await boundObjects(ctx, name, spec);
  const requested = spec.expirationSeconds;
  spec.expirationSeconds = issuer.effectiveExpiration(requested);
  if (spec.expirationSeconds !== requested) {
    ctx.res.setHeader(
      'Warning',
      `299 - "requested expiration of ${requested} seconds shortened to ${spec.expirationSeconds} seconds"`,
    );
  }
  const { token, expiresAtMs } = await issuer.generateToken({
    namespace,
    serviceAccount: refOf(sa),
    bound,
    audiences: spec.audiences,
    nowMs,
    expirationSeconds: spec.expirationSeconds,
  });
  // Like upstream: name and namespace filled from the ServiceAccount, creationTimestamp is the issue time.
  const m = (obj.metadata ?? {}) as Obj;
  const out: Obj = {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    metadata: { ...m, name, namespace, creationTimestamp: formatTimestamp(nowMs) },
    spec: { ...((obj.spec ?? {}) as Obj), audiences: spec.audiences, expirationSeconds: spec.expirationSeconds },
    status: { token, expirationTimestamp: formatTimestamp(expiresAtMs) },
  };
  writeJSON(ctx.res, 201, out);
}
