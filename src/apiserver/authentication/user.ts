/**
 * Who made a request, like upstream's user.Info: the name, uid, groups and
 * extra attributes that authorization, flow control and audit read.
 */

/** An authenticated (or anonymous) user. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The group every authenticated user belongs to. */
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** A request without credentials, as upstream's anonymous authenticator names it (--anonymous-auth). */
export const ANONYMOUS_USER: Readonly<UserInfo> = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * Requests on the lab's plain-HTTP port: no authentication, all-powerful, as upstream's removed
 * insecure port treated them (`system:unsecured` in `system:masters`).
 */
export const UNSECURED_USER: Readonly<UserInfo> = {
  username: 'system:unsecured',
  groups: ['system:masters', AUTHENTICATED_GROUP],
};
