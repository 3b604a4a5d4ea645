import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Taint, Toleration } from '../../../api/index.js';
import { makeNode, makePod, makeSnapshot, runFilter, runScore } from '../../testing/wrappers.js';
import { taintToleration } from './index.js';

const gpu: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
const UNTOLERATED = 'node(s) had untolerated taint {dedicated: gpu}';

const filterCases: { name: string; taints: Taint[]; tolerations?: Toleration[]; want: string }[] = [
  { name: 'an untainted node fits', taints: [], want: '' },
  { name: 'an untolerated NoSchedule taint rejects', taints: [gpu], want: UNTOLERATED },
  { name: 'an untolerated NoExecute taint rejects', taints: [{ ...gpu, effect: 'NoExecute' }], want: UNTOLERATED },
  { name: 'a PreferNoSchedule taint never rejects', taints: [{ ...gpu, effect: 'PreferNoSchedule' }], want: '' },
  {
    name: 'Equal with the same key and value tolerates',
    taints: [gpu],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
    want: '',
  },
  { name: 'no operator means Equal', taints: [gpu], tolerations: [{ key: 'dedicated', value: 'gpu' }], want: '' },
  {
    name: 'operator "" is Equal, like upstream',
    taints: [gpu],
    tolerations: [{ key: 'dedicated', operator: '', value: 'gpu' }],
    want: '',
  },
  {
    name: 'operator "" with another value does not tolerate',
    taints: [gpu],
    tolerations: [{ key: 'dedicated', operator: '', value: 'cpu' }],
    want: UNTOLERATED,
  },
  {
    name: 'Equal with another value does not tolerate',
    taints: [gpu],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'cpu' }],
    want: UNTOLERATED,
  },
  {
    name: 'Exists on the key tolerates any value',
    taints: [gpu],
    tolerations: [{ key: 'dedicated', operator: 'Exists' }],
    want: '',
  },
  {
    name: 'Exists with an empty key tolerates every taint',
    taints: [gpu, { key: 'other', effect: 'NoExecute' }],
    tolerations: [{ operator: 'Exists' }],
    want: '',
  },
  {
    name: 'a toleration for another effect does not tolerate',
    taints: [gpu],
    tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }],
    want: UNTOLERATED,
  },
  {
    name: 'every hard taint must be tolerated',
    taints: [{ key: 'a', effect: 'NoSchedule' }, gpu],
    tolerations: [{ key: 'a', operator: 'Exists' }],
    want: UNTOLERATED,
  },
];

for (const c of filterCases) {
  test(`TaintToleration Filter: ${c.name}`, () => {
    const snap = makeSnapshot([makeNode('n1', { taints: c.taints })]);
    const pod = makePod('p', c.tolerations !== undefined ? { spec: { tolerations: c.tolerations } } : {});
    assert.deepEqual(runFilter(taintToleration(), pod, snap), { n1: c.want });
  });
}

const prefer = (key: string): Taint => ({ key, effect: 'PreferNoSchedule' });

test('TaintToleration Score: fewer untolerated PreferNoSchedule taints score higher (normalised in reverse)', () => {
  const snap = makeSnapshot([
    makeNode('clean'),
    makeNode('one', { taints: [prefer('a')] }),
    makeNode('two', { taints: [prefer('a'), prefer('b')] }),
    makeNode('hard', { taints: [gpu] }),
  ]);
  assert.deepEqual(runScore(taintToleration(), makePod('p'), snap), { clean: 100, one: 50, two: 0, hard: 100 });
  const tolerant = makePod('q', { spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } });
  assert.deepEqual(runScore(taintToleration(), tolerant, snap), { clean: 100, one: 100, two: 0, hard: 100 });
});

test('TaintToleration PreScore: skipped when no feasible node has a PreferNoSchedule taint', () => {
  const snap = makeSnapshot([makeNode('clean'), makeNode('hard', { taints: [gpu] })]);
  assert.equal(runScore(taintToleration(), makePod('p'), snap), undefined);
});
