/** A request's authorization attributes, from its RequestInfo and user. */
import type { UserInfo } from '../authentication/index.js';
import { selectedName, type RequestInfo } from '../request_info.js';
import type { Attributes } from './authorizer.js';

/**
 * The attributes upstream's WithAuthorization builds from the request info. A list or watch carries its
 * field selector, and one pinned to `metadata.name=x` is named `x`, as upstream's RequestInfoFactory names
 * it, so a single-object watch is authorized like a get of that object (RBAC resourceNames, the Node
 * authorizer's graph).
 */
export function attributesOf(info: RequestInfo, user: UserInfo): Attributes {
  const a: Attributes = {
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
  if (info.verb === 'list' || info.verb === 'watch') {
    const selector = info.query.get('fieldSelector');
    if (selector !== null && selector !== '') {
      a.fieldSelector = selector;
      if (a.name === '') a.name = selectedName(info);
    }
  }
  return a;
}
