/**
 * OpenAPI documents. /openapi/v3 lists one document per group-version, each
 * with a PATCH operation per kind carrying x-kubernetes-group-version-kind and
 * the fieldValidation parameter, which is what kubectl needs to validate and
 * to skip /openapi/v2. /openapi/v2 answers JSON, or, to clients that ask for
 * protobuf (kubectl does), a protobuf Document holding only the swagger
 * version: kscale does not encode protobuf (a deliberate, documented limit).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONVERTED_RESOURCES, RESOURCES, servedGroupVersions } from '../api/index.js';
import { openapiV2Definitions, openapiV3Document } from '../api/index.js';
import type { CustomResources } from './customresource/registry.js';
import { SERVER_VERSION } from './nonresource.js';
import type { RequestInfo } from './request_info.js';
import { writeJSON } from './responsewriters.js';

/** The protobuf encoding of an OpenAPI v2 Document {swagger: "2.0"} (field 1, string). */
const PROTO_SWAGGER_ONLY = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);

const gvPath = (group: string, version: string): string =>
  group === '' ? `api/${version}` : `apis/${group}/${version}`;

/** Serves /openapi/v2 and /openapi/v3[/...]; false when the path is not OpenAPI. */
export function serveOpenAPI(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  custom?: CustomResources,
): boolean {
  const p = info.path.replace(/\/+$/, '');
  if (p === '/openapi/v2') {
    const accept = req.headers.accept ?? '';
    if (accept.includes('protobuf') && !accept.startsWith('application/json')) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': PROTO_SWAGGER_ONLY.length });
      res.end(PROTO_SWAGGER_ONLY);
      return true;
    }
    writeJSON(res, 200, {
      swagger: '2.0',
      info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
      paths: {},
      definitions: openapiV2Definitions(),
    });
    return true;
  }
  if (p === '/openapi/v3') {
    const paths: Record<string, unknown> = {};
    for (const { group, version } of servedGroupVersions([
      ...RESOURCES,
      ...CONVERTED_RESOURCES,
      ...(custom?.resources() ?? []),
    ])) {
      paths[gvPath(group, version)] = {
        serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${custom?.openAPIHash(group, version) ?? SERVER_VERSION.gitVersion}`,
      };
    }
    writeJSON(res, 200, { paths });
    return true;
  }
  const m = /^\/openapi\/v3\/(api\/[^/]+|apis\/[^/]+\/[^/]+)$/.exec(p);
  if (m === null) return false;
  const parts = m[1].split('/');
  const [group, version] = parts[0] === 'api' ? ['', parts[1]] : [parts[1], parts[2]];
  const doc = openapiV3Document(group, version) ?? custom?.openAPIV3(group, version);
  if (doc === undefined) return false;
  writeJSON(res, 200, doc);
  return true;
}
