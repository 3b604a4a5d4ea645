import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  findMatchingUntoleratedTaint,
  getMatchingTolerations,
  matchTaint,
  toleratesTaint,
  tolerationsTolerateTaint,
} from './taints.js';

const dedicated = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

test('a toleration with operator "" matches like Equal, as upstream ToleratesTaint does', () => {
  assert.ok(toleratesTaint({ key: 'dedicated', operator: '', value: 'gpu', effect: 'NoSchedule' }, dedicated));
  assert.ok(!toleratesTaint({ key: 'dedicated', operator: '', value: 'cpu', effect: 'NoSchedule' }, dedicated));
  assert.ok(toleratesTaint({ key: 'dedicated', value: 'gpu' }, dedicated), 'no operator is Equal too');
});

test('Exists with an empty key tolerates every taint; an empty effect matches every effect', () => {
  assert.ok(toleratesTaint({ operator: 'Exists' }, dedicated));
  assert.ok(toleratesTaint({ key: 'dedicated', operator: 'Exists' }, dedicated));
  assert.ok(!toleratesTaint({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, dedicated));
  assert.ok(!toleratesTaint({ key: 'other', operator: 'Exists' }, dedicated));
});

test('an unknown operator tolerates nothing', () => {
  assert.ok(!toleratesTaint({ key: 'dedicated', operator: 'Gt', value: 'gpu' }, dedicated));
});

test('the list helpers find the first untolerated taint and the tolerations used', () => {
  const soft = { key: 'soft', effect: 'PreferNoSchedule' };
  const tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'gpu' }];
  assert.ok(tolerationsTolerateTaint(tolerations, dedicated));
  assert.equal(
    findMatchingUntoleratedTaint([dedicated, soft], tolerations, () => true),
    soft,
  );
  assert.equal(
    findMatchingUntoleratedTaint([dedicated, soft], tolerations, (e) => e === 'NoSchedule'),
    undefined,
  );
  assert.deepEqual(getMatchingTolerations([dedicated], tolerations), { allTolerated: true, used: tolerations });
  assert.ok(matchTaint(dedicated, { key: 'dedicated', effect: 'NoSchedule' }));
});
