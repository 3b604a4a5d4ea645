/** ServiceAccounts (v1), with the token subresource (TokenRequest). */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { handleServiceAccountToken } from './token.js';

/** The serviceaccounts registry entry. */
export const serviceAccounts: ResourceDefinition = {
  group: '',
  resource: 'serviceaccounts',
  strategy: (info) => genericStrategy(info),
  subresources: { token: handleServiceAccountToken },
};
