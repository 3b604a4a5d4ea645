import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conflict, type KubeObject } from '../../api/index.js';
import type { ResourceClient } from '../../client/index.js';
import { updateStatusIfChanged } from './update_status.js';

type Obj = KubeObject & { status?: Record<string, unknown> };

/** A client whose first status write conflicts because the spec moved on to `newer` meanwhile. */
function movedOnClient(newer: Obj): { client: ResourceClient<Obj>; written: Obj[] } {
  const written: Obj[] = [];
  let calls = 0;
  const client = {
    updateStatus: (o: Obj) => {
      calls++;
      if (calls === 1) return Promise.reject(conflict('statefulsets.apps', 'web', 'the object has been modified'));
      written.push(o);
      return Promise.resolve(o);
    },
    get: () => Promise.resolve(newer),
  } as unknown as ResourceClient<Obj>;
  return { client, written };
}

test('a status retried onto a newer object keeps the generation it was computed from', async () => {
  const seen: Obj = { metadata: { name: 'web', namespace: 'default', generation: 2 }, status: { updatedReplicas: 0 } };
  const newer: Obj = { metadata: { name: 'web', namespace: 'default', generation: 3 }, status: { updatedReplicas: 0 } };
  const { client, written } = movedOnClient(newer);
  await updateStatusIfChanged(client, seen, { updatedReplicas: 3 });
  assert.equal(written.length, 1);
  assert.equal(written[0]!.metadata?.generation, 3, 'the retry writes onto the fresh object');
  assert.equal(written[0]!.status?.observedGeneration, 2, 'but claims only the generation it computed from');
  assert.equal(written[0]!.status?.updatedReplicas, 3);
});
