/** ServiceAccounts (v1), with the token subresource (TokenRequest). */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { handleServiceAccountToken } from './token.js';
import { serviceAccountTable } from './table.js';

/** The serviceaccounts registry entry. */
export const serviceAccounts: ResourceDefinition = {
  group: '',
  resource: 'serviceaccounts',
  table: serviceAccountTable,
  strategy: (info) => genericStrategy(info),
  subresources: { token: handleServiceAccountToken },
};
