import assert from 'node:assert/strict';
import { test } from 'node:test';
import { semanticEqual } from './semantic.js';

test('semanticEqual treats absent, null and zero values alike, at any depth, in any key order', () => {
  const equal: [unknown, unknown][] = [
    [undefined, null],
    ['', 0],
    [false, []],
    [{}, null],
    [
      { a: 1, b: { c: '' } },
      { b: {}, a: 1 },
    ],
    [{}, { x: 0, y: {} }],
    [{ x: 0 }, {}],
    [[{ a: 1, b: [] }], [{ a: 1 }]],
    [
      { spec: { containers: [{ name: 'c', image: 'i', args: [] }] } },
      { spec: { containers: [{ image: 'i', name: 'c' }], nodeName: '' } },
    ],
  ];
  for (const [a, b] of equal) {
    assert.ok(semanticEqual(a, b), `${JSON.stringify(a)} == ${JSON.stringify(b)}`);
    assert.ok(semanticEqual(b, a), `${JSON.stringify(b)} == ${JSON.stringify(a)}`);
  }
  const different: [unknown, unknown][] = [
    [0, 1],
    ['a', ''],
    [{}, { x: 1 }],
    [{ x: 1 }, { x: '1' }],
    [[1], [1, 2]],
    [[], [0]],
    [{ a: [] }, { a: [1] }],
    [{ a: { b: 1 } }, { a: { b: 1, c: 2 } }],
    [{ a: 1 }, [1]],
    [{ spec: { nodeName: 'n1' } }, { spec: { nodeName: 'n2' } }],
    [{}, { y: { z: null } }],
  ];
  for (const [a, b] of different) {
    assert.ok(!semanticEqual(a, b), `${JSON.stringify(a)} != ${JSON.stringify(b)}`);
    assert.ok(!semanticEqual(b, a), `${JSON.stringify(b)} != ${JSON.stringify(a)}`);
  }
});
