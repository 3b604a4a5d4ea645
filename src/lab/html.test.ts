import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectsTable } from './html.js';
import { quietPhase } from './load.js';
import type { LabReport } from './report.js';

const phase = (name: string, objects?: LabReport['phases'][number]['objects']): LabReport['phases'][number] => ({
  ...quietPhase(name, 'create', 0, 1),
  ...(objects === undefined ? {} : { objects }),
});

test('the objects table has a row per kind with its counts, and a column per phase with the time to its target', () => {
  const html = objectsTable({
    objects: {
      DaemonSet: { created: 1, peak: 1, ready: 1, deleted: 1, phaseS: { create: 2.5, delete: 0.5 } },
      StatefulSet: { created: 3, peak: 2, ready: 2, deleted: 3 },
    },
    phases: [
      phase('nodes'),
      phase('create', { DaemonSet: { changed: 1, want: 1, readyS: 2.5 }, Pod: { changed: 0, want: 40, readyS: 3 } }),
      phase('delete', { DaemonSet: { changed: 1, want: 0, readyS: 0.5 }, StatefulSet: { changed: 2, want: 0 } }),
    ],
  });
  // The nodes phase has no objects: only create and delete are columns.
  assert.match(html, /<th>deleted<\/th><th>create<\/th><th>delete<\/th><\/tr>/);
  assert.match(
    html,
    /<tr><td>DaemonSet<\/td><td>1<\/td><td>1<\/td><td>1<\/td><td>1<\/td><td>2\.5 s \(1 changed\), want 1<\/td><td>0\.5 s \(1 changed\), want 0<\/td><\/tr>/,
  );
  assert.match(
    html,
    /<tr><td>StatefulSet<\/td><td>3<\/td><td>2<\/td><td>2<\/td><td>3<\/td><td>-<\/td><td>not reached \(2 changed\), want 0<\/td><\/tr>/,
  );
  assert.match(
    html,
    /<tr><td>Pod<\/td><td>-<\/td><td>-<\/td><td>-<\/td><td>-<\/td><td>3\.0 s, want 40<\/td><td>-<\/td><\/tr>/,
  );
  assert.equal(objectsTable({ phases: [] }), '');
});
