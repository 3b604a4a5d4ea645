import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole } from '../../api/index.js';
import { aggregateRules } from './clusterroleaggregation_controller.js';

const role = (name: string, labels: Record<string, string>, rules: ClusterRole['rules']): ClusterRole => ({
  metadata: { name, labels },
  rules,
});

test('an aggregated role gathers the rules of the roles its selectors match, in name order, each rule once', () => {
  const get = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
  const list = { verbs: ['list'], apiGroups: [''], resources: ['pods'] };
  const url = { verbs: ['get'], nonResourceURLs: ['/x'] };
  const view: ClusterRole = {
    metadata: { name: 'view', labels: { 'to-edit': 'true' } },
    aggregationRule: {
      clusterRoleSelectors: [
        { matchLabels: { 'to-view': 'true' } },
        { matchExpressions: [{ key: 'extra', operator: 'Exists' }] },
      ],
    },
    rules: [],
  };
  const all = [
    view,
    role('z-late', { 'to-view': 'true' }, [list, get]),
    role('a-early', { 'to-view': 'true' }, [get]),
    role('m-extra', { extra: 'yes' }, [url]),
    role('unrelated', { 'to-view': 'false' }, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
  ];
  assert.deepEqual(aggregateRules(view, all), [get, url, list]);
  const selfMatching = { ...view, metadata: { name: 'view', labels: { 'to-view': 'true' } }, rules: [url] };
  assert.deepEqual(aggregateRules(selfMatching, [selfMatching]), [], 'a role never aggregates itself');
});
