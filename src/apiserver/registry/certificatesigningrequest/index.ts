/**
 * CertificateSigningRequests (certificates.k8s.io/v1): the requester recorded
 * on create, and the /approval subresource beside /status.
 */
import { methodNotSupported } from '../../../api/index.js';
import type { RestContext } from '../../endpoints/context.js';
import { handlePatch } from '../../endpoints/patch.js';
import { handleGet } from '../../endpoints/read.js';
import { handleUpdate } from '../../endpoints/write.js';
import type { ResourceDefinition } from '../resource.js';
import { csrTable } from './table.js';
import { csrStrategy } from './strategy.js';

/** GET, PUT and PATCH of certificatesigningrequests/approval: the generic handlers, which write only the conditions. */
function serveApproval(ctx: RestContext): Promise<void> {
  if (ctx.info.verb === 'get') return handleGet(ctx);
  if (ctx.info.verb === 'update') return handleUpdate(ctx);
  if (ctx.info.verb === 'patch') return handlePatch(ctx);
  throw methodNotSupported(
    { group: ctx.resource.group, resource: 'certificatesigningrequests/approval' },
    ctx.info.verb,
  );
}

/** The certificatesigningrequests registry entry. */
export const certificateSigningRequests: ResourceDefinition = {
  group: 'certificates.k8s.io',
  resource: 'certificatesigningrequests',
  table: csrTable,
  strategy: (info) => csrStrategy(info),
  subresources: { approval: serveApproval },
};
