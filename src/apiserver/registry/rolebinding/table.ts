/**
 * The Table columns of RoleBindings and ClusterRoleBindings, as upstream's
 * printRoleBinding: NAME ROLE AGE, and in -o wide the users, groups and
 * ServiceAccounts (as upstream's SubjectsStrings lists them).
 */
import type { KubeObject } from '../../../api/index.js';
import { ageColumn, column, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

/** RoleBindings and ClusterRoleBindings: NAME ROLE AGE, and USERS GROUPS SERVICEACCOUNTS in -o wide. */
export const roleBindingTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Role', 'string', 'Role referenced by this binding'),
    ageColumn(),
    column('Users', 'string', 'Users in the binding', { wide: true }),
    column('Groups', 'string', 'Groups in the binding', { wide: true }),
    column('ServiceAccounts', 'string', 'ServiceAccounts in the binding', { wide: true }),
  ],
  print: (obj, now) => {
    const ref = (obj.roleRef ?? {}) as { kind?: string; name?: string };
    const { users, groups, serviceAccounts } = subjects(obj);
    return {
      cells: [
        str(obj.metadata?.name),
        `${str(ref.kind)}/${str(ref.name)}`,
        timestampSince(obj.metadata?.creationTimestamp, now),
        users.join(', '),
        groups.join(', '),
        serviceAccounts.join(', '),
      ],
    };
  },
};

function subjects(obj: KubeObject): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  const list = Array.isArray(obj.subjects)
    ? (obj.subjects as { kind?: string; name?: string; namespace?: string }[])
    : [];
  for (const s of list) {
    if (s.kind === 'User') out.users.push(str(s.name));
    else if (s.kind === 'Group') out.groups.push(str(s.name));
    else if (s.kind === 'ServiceAccount')
      out.serviceAccounts.push(s.namespace ? `${s.namespace}/${str(s.name)}` : str(s.name));
  }
  return out;
}
