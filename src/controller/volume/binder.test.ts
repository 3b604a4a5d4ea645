import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim } from '../../api/index.js';
import { findMatchingVolume, volumePhase } from './binder.js';

const pv = (
  name: string,
  size: string,
  extra: Partial<NonNullable<PersistentVolume['spec']>> = {},
): PersistentVolume => ({
  metadata: { name, labels: { tier: name.startsWith('gold') ? 'gold' : 'bronze' } },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', ...extra },
});
const claim = (spec: Partial<NonNullable<PersistentVolumeClaim['spec']>> = {}, uid = 'u1'): PersistentVolumeClaim => ({
  metadata: { name: 'c', namespace: 'ns', uid },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '1Gi' } },
    storageClassName: 'manual',
    ...spec,
  },
});

test('findMatchingVolume picks the smallest volume that satisfies class, modes, size, mode and selector', () => {
  const cases: [string, PersistentVolumeClaim, PersistentVolume[], string | undefined][] = [
    ['smallest fitting', claim(), [pv('a', '10Gi'), pv('b', '2Gi'), pv('c', '500Mi')], 'b'],
    ['other class', claim({ storageClassName: 'fast' }), [pv('a', '10Gi')], undefined],
    ['missing access mode', claim({ accessModes: ['ReadWriteMany'] }), [pv('a', '10Gi')], undefined],
    [
      'block wants block',
      claim({ volumeMode: 'Block' }),
      [pv('a', '1Gi'), pv('b', '2Gi', { volumeMode: 'Block' })],
      'b',
    ],
    ['selector', claim({ selector: { matchLabels: { tier: 'gold' } } }), [pv('a', '1Gi'), pv('gold', '5Gi')], 'gold'],
    [
      'claimed by another',
      claim(),
      [pv('a', '1Gi', { claimRef: { namespace: 'ns', name: 'other', uid: 'u9' } })],
      undefined,
    ],
    [
      'pre-bound wins over smaller',
      claim(),
      [pv('a', '1Gi'), pv('mine', '8Gi', { claimRef: { namespace: 'ns', name: 'c' } })],
      'mine',
    ],
  ];
  for (const [name, c, volumes, want] of cases)
    assert.equal(findMatchingVolume(c, volumes)?.metadata?.name, want, name);
});

test('volumePhase follows upstream: Available without a claim, Bound to its claim, Released once the claim is gone', () => {
  const ref = { namespace: 'ns', name: 'c', uid: 'u1' };
  const cases: [string, PersistentVolume, PersistentVolumeClaim | undefined, string][] = [
    ['free', pv('a', '1Gi'), undefined, 'Available'],
    ['bound', pv('a', '1Gi', { claimRef: ref }), claim({ volumeName: 'a' }), 'Bound'],
    ['claim not yet pointing back', pv('a', '1Gi', { claimRef: ref }), claim(), 'Available'],
    ['claim deleted', pv('a', '1Gi', { claimRef: ref }), undefined, 'Released'],
    ['claim re-created', pv('a', '1Gi', { claimRef: ref }), claim({ volumeName: 'a' }, 'u2'), 'Released'],
    [
      'pre-bound by the user, claim absent',
      pv('a', '1Gi', { claimRef: { namespace: 'ns', name: 'c' } }),
      undefined,
      'Available',
    ],
  ];
  for (const [name, v, c, want] of cases) assert.equal(volumePhase(v, c), want, name);
});
