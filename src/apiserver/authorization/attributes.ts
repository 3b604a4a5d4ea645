/** A request's authorization attributes, from its RequestInfo and user. */
import type { UserInfo } from '../authentication/index.js';
import type { RequestInfo } from '../request_info.js';
import type { Attributes } from './authorizer.js';

/** The attributes upstream's WithAuthorization builds from the request info. */
export function attributesOf(info: RequestInfo, user: UserInfo): Attributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}
