/**
 * What every REST handler receives: the request, the parsed RequestInfo, the
 * resource's store, and the server-wide services (clock, admission, stores).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo } from '../../api/index.js';
import type { ResourcePrinter } from '../registry/printers/index.js';
import type { Clock } from '../../clock/index.js';
import type { AdmissionChain } from '../admission/chain.js';
import type { CustomResources } from '../customresource/registry.js';
import type { Admission, GenericStore } from '../registry/store.js';
import type { RequestInfo } from '../request_info.js';
import type { ServiceAccountTokenIssuer } from '../serviceaccount/index.js';
import type { OpenWatches } from './open_watches.js';

/** Server-wide services the handlers use. */
export interface ServerServices {
  clock: Clock;
  stores: Map<string, GenericStore>;
  /** The stores of served versions that are not the storage version, by gvrKey (autoscaling/v1 HPAs). */
  convertedStores?: Map<string, GenericStore>;
  admission: AdmissionChain;
  /** The minimum watch timeout (kube-apiserver's --min-request-timeout, 1800 s). */
  minRequestTimeoutSeconds: number;
  /** Open watches, stopped at their timeout, and at shutdown so each stream ends cleanly (upstream's graceful termination). */
  openWatches: OpenWatches;
  /** The resources established CRDs serve (absent in servers built without them). */
  customResources?: CustomResources;
  /** Signs serviceaccounts/token requests. */
  tokenIssuer?: ServiceAccountTokenIssuer;
}

/** The key of a served group/version/resource in ServerServices.convertedStores. */
export const gvrKey = (r: { group: string; version: string; resource: string }): string =>
  `${r.group}/${r.version}/${r.resource}`;

/** One resource request in flight. */
export interface RestContext {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  resource: ResourceInfo;
  store: GenericStore;
  services: ServerServices;
  /** A custom resource's Table columns (built-in resources print by their plural). */
  printer?: ResourcePrinter;
  /** A custom resource's selectableFields, as field-selector getters. */
  fieldGetters?: Readonly<Record<string, (obj: unknown) => string>>;
}

/** The store of a resource by plural name (core or any group). */
export function storeOf(services: ServerServices, resource: string): GenericStore {
  const s = services.stores.get(resource);
  if (s === undefined) throw new Error(`no store for ${resource}`);
  return s;
}

/** The request's admission: the server's chain, told who is asking (upstream's admission.Attributes.GetUserInfo). */
export function admissionFor(ctx: RestContext): Admission {
  const user = ctx.info.user;
  return { run: (a) => ctx.services.admission.run(user === undefined ? a : { ...a, userInfo: user }) };
}
