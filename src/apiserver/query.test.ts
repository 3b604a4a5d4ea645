import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryBool } from './query.js';

test('a boolean query parameter is true unless absent, "0" or "false" in any case, like upstream', () => {
  const cases: [string, boolean][] = [
    ['', false],
    ['watch', true],
    ['watch=', true],
    ['watch=true', true],
    ['watch=True', true],
    ['watch=1', true],
    ['watch=yes', true],
    ['watch=0', false],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=false&watch=true', false],
    ['other=true', false],
  ];
  for (const [qs, want] of cases) assert.equal(queryBool(new URLSearchParams(qs), 'watch'), want, qs);
});
