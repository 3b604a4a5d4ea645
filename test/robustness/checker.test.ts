import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkHistory } from './checker.js';
import type { History, WriteOp } from './history.js';

const w = (kind: WriteOp['kind'], key: string, rv: number, t: number, extra: Partial<WriteOp> = {}): WriteOp => ({
  kind,
  key,
  rv,
  value: kind === 'delete' ? undefined : `v${rv}`,
  start: t,
  end: t + 1,
  outcome: 'ok',
  ...extra,
});

/** A clean history: a create, an update and a delete, one watch seeing all three, a list after each. */
function clean(): History {
  return {
    writes: [w('create', 'a', 10, 0), w('update', 'a', 11, 2, { expect: 10 }), w('delete', 'a', 12, 4, { expect: 11 })],
    reads: [
      { kind: 'list', start: 1.5, end: 1.6, rv: 10, items: [['a', 10, 'v10']] },
      { kind: 'get', key: 'a', start: 3.5, end: 3.6, rv: 11, items: [['a', 11, 'v11']] },
      { kind: 'list', start: 5.5, end: 5.6, rv: 12, items: [] },
    ],
    watches: [
      {
        from: 9,
        events: [
          { type: 'ADDED', key: 'a', rv: 10, value: 'v10' },
          { type: 'MODIFIED', key: 'a', rv: 11, value: 'v11' },
          { type: 'BOOKMARK', key: '', rv: 11, value: '' },
          { type: 'DELETED', key: 'a', rv: 12, value: 'v11' },
        ],
      },
    ],
  };
}

test('a clean history passes', () => {
  assert.deepEqual(checkHistory(clean()), []);
});

test('a duplicated watch event is flagged', () => {
  const h = clean();
  h.watches[0]!.events.splice(1, 0, { type: 'ADDED', key: 'a', rv: 10, value: 'v10' });
  assert.match(checkHistory(h).join('\n'), /out of order or repeated/);
});

test('a skipped revision and a bookmark ahead of it are flagged', () => {
  const h = clean();
  h.watches[0]!.events.splice(1, 1);
  const v = checkHistory(h).join('\n');
  assert.match(v, /bookmark 11 ran ahead of undelivered 11/);
});

test('an acknowledged write lost after a restart is flagged (its revision reused, the lists disagree)', () => {
  const h = clean();
  h.writes.push(w('create', 'b', 13, 6), w('create', 'c', 13, 8));
  h.reads.push({ kind: 'list', start: 9, end: 9.1, rv: 13, items: [['c', 13, 'v13']] });
  const v = checkHistory(h).join('\n');
  assert.match(v, /revision 13 reused/);
  assert.match(v, /began after create b at 13 was acknowledged/);
});

test('a consistent read older than an acknowledged write is flagged', () => {
  const h = clean();
  h.reads.push({ kind: 'get', key: 'a', start: 3.2, end: 3.3, rv: 10, items: [['a', 10, 'v10']] });
  assert.match(checkHistory(h).join('\n'), /consistent get of a returned 10, older than acknowledged 11/);
});

test('a refused write that shows up anyway is flagged', () => {
  const h = clean();
  h.writes.push({ kind: 'create', key: 'z', value: 'v11', start: 1, end: 1.2, outcome: 'failed' });
  assert.match(checkHistory(h).join('\n'), /refused create of z=v11 was applied/);
});
