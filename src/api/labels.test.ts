import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromLabelSelector, matchesLabelSet, parseLabelSelector, selectorFromSet } from './labels.js';
import { StatusError } from './status.js';

test('equality, inequality and existence requirements match like apimachinery', () => {
  const s = parseLabelSelector('app=web, tier==front,env!=prod,canary,!legacy');
  assert.equal(s.matches({ app: 'web', tier: 'front', canary: '' }), true);
  assert.equal(s.matches({ app: 'web', tier: 'front', canary: '', env: 'prod' }), false);
  assert.equal(s.matches({ app: 'web', tier: 'front' }), false, 'canary must exist');
  assert.equal(s.matches({ app: 'web', tier: 'front', canary: 'x', legacy: 'y' }), false);
  assert.equal(s.toString(), 'app=web,canary,env!=prod,!legacy,tier==front');
});

test('set requirements handle in, notin, empty members and keywords as values', () => {
  const s = parseLabelSelector('x in (foo,,baz),y,z notin ()');
  assert.deepEqual(s.requirements.find((r) => r.key === 'x')?.values, ['', 'baz', 'foo']);
  assert.equal(s.matches({ x: '', y: 'a' }), true);
  assert.equal(s.matches({ x: 'foo', y: 'a', z: '' }), false);
  assert.equal(parseLabelSelector('a in (in,notin)').matches({ a: 'notin' }), true);
  assert.equal(parseLabelSelector('a notin (b)').matches({}), true, 'notin matches a missing key');
});

test('an empty selector matches everything, including objects without labels', () => {
  const s = parseLabelSelector('   ');
  assert.equal(s.empty, true);
  assert.equal(s.matches(undefined), true);
});

test('exact match with an empty value', () => {
  const s = parseLabelSelector('a=,b');
  assert.equal(s.matches({ a: '', b: '1' }), true);
  assert.equal(s.requiresExactMatch('a'), '');
});

test('gt and lt compare integers', () => {
  assert.equal(parseLabelSelector('n>5').matches({ n: '7' }), true);
  assert.equal(parseLabelSelector('n<5').matches({ n: '7' }), false);
  assert.equal(parseLabelSelector('n>5').matches({ n: 'x' }), false);
});

test('syntax errors give upstream parser messages as 400s', () => {
  const cases: [string, RegExp][] = [
    ['a=b,', /found '', expected: identifier after ','/],
    ['x in a', /unable to parse requirement: found 'a' expected: '\('/],
    ['!a=b', /found '=', expected: ',' or 'end of string'/],
    ['a b', /found 'b', expected: in, notin, =, ==, !=, gt, lt/],
    ['a=b c', /found 'c', expected: ',' or 'end of string'/],
    ['x in (a b)', /found 'b', expected: ',' or '\)'/],
  ];
  for (const [input, re] of cases) {
    assert.throws(
      () => parseLabelSelector(input),
      (e: unknown) => e instanceof StatusError && e.code === 400 && re.test(e.message),
      input,
    );
  }
});

test('invalid keys and values are rejected with validation messages', () => {
  assert.throws(() => parseLabelSelector('-bad=x'), /name part must consist of alphanumeric characters/);
  assert.throws(() => parseLabelSelector(`a=${'v'.repeat(64)}`), /must be no more than 63 characters/);
  assert.throws(() => parseLabelSelector('a=b/c'), /a valid label must be an empty string/);
});

test('fromLabelSelector: nil matches nothing, {} everything, expressions combine', () => {
  assert.equal(fromLabelSelector(undefined).matches({}), false);
  assert.equal(fromLabelSelector({}).matches({ any: 'x' }), true);
  const s = fromLabelSelector({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
      { key: 'old', operator: 'DoesNotExist' },
      { key: 'zone', operator: 'Exists' },
    ],
  });
  assert.equal(s.matches({ app: 'web', tier: 'b', zone: 'z1' }), true);
  assert.equal(s.matches({ app: 'web', tier: 'c', zone: 'z1' }), false);
  assert.equal(s.matches({ app: 'web', tier: 'a', zone: 'z1', old: '1' }), false);
  assert.throws(
    () => fromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] }),
    /"Near" is not a valid label selector operator/,
  );
  assert.throws(
    () => fromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
    /values set can't be empty/,
  );
});

test('selectorFromSet matches exactly', () => {
  const s = selectorFromSet({ a: '1' });
  assert.equal(s.matches({ a: '1', b: '2' }), true);
  assert.equal(s.matches({ a: '2' }), false);
});

test('a label set matches labels holding all of its pairs, as the selector built from it does', () => {
  const set = { app: 'web', tier: 'front' };
  const cases: (Record<string, string> | undefined)[] = [
    { app: 'web', tier: 'front', extra: 'x' },
    { app: 'web' },
    { app: 'web', tier: 'back' },
    undefined,
  ];
  for (const labels of cases) {
    assert.equal(matchesLabelSet(set, labels), selectorFromSet(set).matches(labels ?? {}));
  }
  assert.equal(matchesLabelSet({}, undefined), true);
});
