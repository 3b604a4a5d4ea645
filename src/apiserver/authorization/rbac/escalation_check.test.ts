import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactString, confirmNoEscalation, ruleCovers, uncovered } from './escalation_check.js';

const user = { username: 'jane', groups: ['devs', 'system:authenticated'] };

test('a rule covers the grants of another as upstream: wildcards, */subresource, names and URL prefixes', () => {
  const atom = (verb: string, group: string, resource: string, names?: string[]) => ({
    verbs: [verb],
    apiGroups: [group],
    resources: [resource],
    ...(names ? { resourceNames: names } : {}),
  });
  assert.ok(ruleCovers({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, atom('get', 'apps', 'deployments')));
  assert.ok(
    ruleCovers({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, atom('get', 'apps', 'deployments/scale')),
  );
  assert.ok(
    !ruleCovers({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, atom('get', 'apps', 'deployments')),
  );
  assert.ok(
    !ruleCovers(
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      atom('get', '', 'pods'),
    ),
  );
  assert.ok(ruleCovers({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, atom('get', '', 'pods', ['a'])));
  assert.ok(
    ruleCovers({ verbs: ['get'], nonResourceURLs: ['/apis/*'] }, { verbs: ['get'], nonResourceURLs: ['/apis/apps'] }),
  );
  assert.ok(
    !ruleCovers({ verbs: ['get'], nonResourceURLs: ['/apis'] }, { verbs: ['get'], nonResourceURLs: ['/apis/apps'] }),
  );
});

test('what is not held is listed grant by grant, merged per resource, in upstream words', () => {
  const held = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }];
  assert.deepEqual(uncovered(held, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), []);
  const msg = confirmNoEscalation(user, held, [
    { verbs: ['get', 'delete', 'create'], apiGroups: [''], resources: ['pods', 'secrets'] },
    { verbs: ['get'], nonResourceURLs: ['/metrics'] },
  ]);
  assert.equal(
    msg,
    'user "jane" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]}\n' +
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "create"]}\n' +
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
  );
  assert.equal(
    compactString({ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }),
    '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["x"], Verbs:["get"]}',
  );
});
