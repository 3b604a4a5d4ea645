/**
 * Routes a resource request to its handler by verb and subresource, like
 * upstream's APIInstaller (a resource's own subresources by its registry folder);
 * unknown resources get 404 and unsupported verbs 405.
 */
import { lookupResource } from '../../api/index.js';
import { methodNotSupported, newStatusError, notFound, routeNotFound } from '../../api/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { definitionFor } from '../registry/index.js';
import type { RequestInfo } from '../request_info.js';
import { checkAcceptable } from '../negotiation.js';
import { gvrKey, type RestContext, type ServerServices } from './context.js';
import { handleDelete, handleDeleteCollection } from './delete.js';
import { handlePatch } from './patch.js';
import { handleGet, handleList } from './read.js';
import { handleWatch } from './watch.js';
import { handleCreate, handleUpdate } from './write.js';

type RestHandler = (ctx: RestContext) => Promise<void>;

const MAIN: Record<string, RestHandler> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/** Dispatches one resource request; throws StatusErrors for the caller to write. */
export async function serveResource(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  services: ServerServices,
): Promise<void> {
  const builtIn = lookupResource(info.apiGroup, info.apiVersion, info.resource);
  // The static scheme first (one map lookup); only a miss asks the custom resources CRDs serve.
  const custom =
    builtIn === undefined ? services.customResources?.lookup(info.apiGroup, info.apiVersion, info.resource) : undefined;
  const resource = builtIn ?? custom?.info;
  if (resource === undefined) throw routeNotFound();
  const store =
    custom?.store ?? services.convertedStores?.get(gvrKey(resource)) ?? services.stores.get(resource.resource);
  if (store === undefined) throw notFound({ group: resource.group, resource: resource.resource }, info.name);
  // A cluster-scoped resource under /namespaces/x/ is not served.
  if (!resource.namespaced && info.namespace !== '' && resource.resource !== 'namespaces') {
    throw notFound({ group: resource.group, resource: resource.resource }, info.name);
  }
  // Like upstream, negotiate the response type before any work: a client that takes protobuf only gets 406.
  checkAcceptable(req);
  const ctx: RestContext =
    custom === undefined
      ? { req, res, info, resource, store, services }
      : { req, res, info, resource, store, services, printer: custom.table, fieldGetters: custom.fieldGetters };
  const gr = { group: resource.group, resource: resource.resource };
  const sub = info.subresource;
  if (sub === '') {
    const h = MAIN[info.verb];
    if (h === undefined || !resource.verbs.includes(info.verb)) throw methodNotSupported(gr, info.verb);
    // Like upstream's APIInstaller: PUT and PATCH exist only on an item path, POST only on a collection path (go-restful answers 405).
    const itemVerb = info.verb === 'update' || info.verb === 'patch';
    if ((itemVerb && info.name === '') || (info.verb === 'create' && info.name !== '')) {
      throw newStatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
    // Namespaced collections may be listed across all namespaces, but writes need a namespace.
    if (resource.namespaced && info.namespace === '' && (info.verb === 'create' || info.verb === 'deletecollection')) {
      throw methodNotSupported(gr, info.verb);
    }
    return h(ctx);
  }
  const subInfo = resource.subresources.find((s) => s.name === sub);
  if (subInfo === undefined || info.name === '') throw routeNotFound();
  const verb = info.verb;
  if (!subInfo.verbs.includes(verb))
    throw methodNotSupported({ group: resource.group, resource: `${resource.resource}/${sub}` }, verb);
  if (sub === 'status') {
    if (verb === 'get') return handleGet(ctx);
    if (verb === 'update') return handleUpdate(ctx);
    return handlePatch(ctx);
  }
  // Every other subresource is the resource's own, served by its registry folder.
  const h = (custom === undefined ? definitionFor(resource).subresources : custom.subresources)?.[sub];
  if (h === undefined) throw routeNotFound();
  return h(ctx);
}
