/**
 * RBAC escalation prevention on every write of a Role, ClusterRole, RoleBinding or
 * ClusterRoleBinding. Upstream does this in the RBAC registry's policy-based storages; kscale runs
 * the same checks as a validating step of the write, after defaulting, with the same answers:
 * 403 Forbidden naming the grants the user does not hold.
 */
import { forbidden } from '../../api/index.js';
import {
  bindingAuthorized,
  confirmNoEscalation,
  escalationAllowed,
  roleEscalationAuthorized,
  type Authorizer,
  type RBACAuthorizer,
  type Rule,
} from '../authorization/index.js';
import type { AdmissionPlugin } from './chain.js';

const GROUP = 'rbac.authorization.k8s.io';
const ROLES = new Set(['roles', 'clusterroles']);
const BINDINGS = new Set(['rolebindings', 'clusterrolebindings']);
// Upstream's fullAuthority: what writing an aggregationRule needs without `escalate`.
const FULL_AUTHORITY: Rule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** The escalation checks, asking `authorizer` for escalate/bind and `rbac` for the rules a user holds. */
export function rbacEscalation(authorizer: Authorizer, rbac: RBACAuthorizer): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    validate(a) {
      const user = a.userInfo;
      if (user === undefined || a.object === null || a.subresource !== '' || a.operation === 'DELETE') return;
      const isRole = ROLES.has(a.resource);
      if ((!isRole && !BINDINGS.has(a.resource)) || escalationAllowed(user)) return;
      const gr = { group: GROUP, resource: a.resource };
      const deny = (msg: string): never => {
        throw forbidden(gr, a.name, msg);
      };
      if (isRole) {
        if (roleEscalationAuthorized(authorizer, user, a.resource, a.namespace, a.name)) return;
        if (a.object.aggregationRule != null) {
          if (confirmNoEscalation(user, rbac.rulesFor(user, a.namespace), FULL_AUTHORITY) !== undefined)
            deny('must have cluster-admin privileges to use the aggregationRule');
          return;
        }
        const rules = Array.isArray(a.object.rules) ? (a.object.rules as Rule[]) : [];
        const msg = confirmNoEscalation(user, rbac.rulesFor(user, a.namespace), rules);
        if (msg !== undefined) deny(msg);
        return;
      }
      const ref = (a.object.roleRef ?? {}) as { kind?: string; name?: string };
      if (bindingAuthorized(authorizer, user, ref, a.namespace)) return;
      const rules = rbac.roleRules(ref.kind ?? '', a.namespace, ref.name ?? '');
      if (rules === undefined) {
        const resource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
        deny(`${resource}.${GROUP} ${JSON.stringify(ref.name ?? '')} not found`);
      }
      const msg = confirmNoEscalation(user, rbac.rulesFor(user, a.namespace), rules!);
      if (msg !== undefined) deny(msg);
    },
  };
}
