/** Which node a user is, as upstream's nodeidentifier.NewDefaultNodeIdentifier. */
import type { UserInfo } from '../../authentication/index.js';

/** The group every kubelet's identity is in (user.NodesGroup). */
export const NODES_GROUP = 'system:nodes';
const PREFIX = 'system:node:';

/**
 * The node's name for a user named `system:node:<name>` in group system:nodes, or undefined for anyone
 * else. The name may be '' (`system:node:` alone): a node that cannot be identified, which callers refuse.
 */
export function nodeIdentity(user: UserInfo | undefined): string | undefined {
  if (user === undefined || !user.username.startsWith(PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(PREFIX.length);
}
