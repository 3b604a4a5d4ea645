import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minTolerationTimeMs, TAINT_NODE_UNREACHABLE } from './taints.js';
import { getMatchingTolerations, toleratesTaint } from '../../api/index.js';

const unreachable = { key: TAINT_NODE_UNREACHABLE, effect: 'NoExecute' };

test('tolerations match taints like v1helper: empty key with Exists matches all, empty effect any effect', () => {
  assert.ok(toleratesTaint({ operator: 'Exists' }, unreachable));
  assert.ok(toleratesTaint({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists' }, unreachable));
  assert.ok(!toleratesTaint({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoSchedule' }, unreachable));
  assert.ok(
    !toleratesTaint({ key: TAINT_NODE_UNREACHABLE, operator: 'Equal', value: 'x', effect: 'NoExecute' }, unreachable),
  );
  assert.ok(
    toleratesTaint({ key: TAINT_NODE_UNREACHABLE, value: '', effect: 'NoExecute' }, unreachable),
    'Equal is the default operator',
  );
});

test('every taint must be tolerated; the shortest tolerationSeconds wins, none means forever', () => {
  assert.equal(
    getMatchingTolerations(
      [unreachable, { key: 'other', effect: 'NoExecute' }],
      [{ operator: 'Exists', key: TAINT_NODE_UNREACHABLE }],
    ).allTolerated,
    false,
  );
  const { allTolerated, used } = getMatchingTolerations(
    [unreachable],
    [{ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', tolerationSeconds: 30 }],
  );
  assert.ok(allTolerated);
  assert.equal(minTolerationTimeMs(used), 30_000);
  assert.equal(minTolerationTimeMs([{ operator: 'Exists' }]), -1);
  assert.equal(
    minTolerationTimeMs([
      { operator: 'Exists', tolerationSeconds: 300 },
      { operator: 'Exists', tolerationSeconds: -5 },
    ]),
    0,
  );
});

test('taint eviction counts a toleration with operator "" as Equal, like upstream ToleratesTaint', () => {
  const { allTolerated, used } = getMatchingTolerations(
    [unreachable],
    [{ key: TAINT_NODE_UNREACHABLE, operator: '', effect: 'NoExecute', tolerationSeconds: 60 }],
  );
  assert.ok(allTolerated);
  assert.equal(minTolerationTimeMs(used), 60_000);
  assert.equal(
    getMatchingTolerations(
      [unreachable],
      [{ key: TAINT_NODE_UNREACHABLE, operator: '', value: 'x', effect: 'NoExecute' }],
    ).allTolerated,
    false,
  );
});
