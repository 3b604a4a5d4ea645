import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileJsonPath, jsonStringField, jsonStringFields } from './json_field.js';

/** What the indexers compute on a decoded object. */
function byDecode(text: string, path: string[]): string {
  let v: unknown = JSON.parse(text);
  for (const p of path)
    v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the indexers' exact expression is the reference
  return String(v ?? '');
}

const NODE = ['spec', 'nodeName'];
const NAME = ['metadata', 'name'];

test('jsonStringField agrees with a decode on pods and on awkward but valid JSON', () => {
  const pod = {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: 'web-1',
      namespace: 'default',
      labels: { app: 'web' },
      // An annotation keyed like the field, and a value holding its JSON: neither is spec.nodeName.
      annotations: { nodeName: 'wrong', note: '{"spec":{"nodeName":"wrong"}} \\" [ {' },
      managedFields: [{ manager: 'x', fieldsV1: { 'f:spec': { 'f:nodeName': {} } } }],
    },
    spec: { containers: [{ name: 'c', image: 'i', args: ['}', ']', '"'] }], nodeName: 'node-7' },
    status: { phase: 'Running', nominatedNodeName: 'wrong' },
  };
  const docs = [
    JSON.stringify(pod),
    JSON.stringify(pod, null, 2),
    JSON.stringify({ ...pod, spec: { ...pod.spec, nodeName: 'nöde-\u00e9-"q"\\' } }),
    JSON.stringify({ ...pod, spec: { containers: [] } }),
    JSON.stringify({ ...pod, spec: { nodeName: null } }),
    JSON.stringify({ ...pod, spec: 'a string' }),
    JSON.stringify({ ...pod, spec: [1, 2] }),
    JSON.stringify({ ...pod, spec: null }),
    JSON.stringify({ kind: 'Pod' }),
    '{}',
    '{"spec":{"nodeName":"first"},"spec":{"nodeName":"last"}}',
    '{"spec":{"nodeName":"a","nodeName":"b"}}',
    ' { "spec" : { "x" : [ {"nodeName":"no"} ] , "nodeName" : "yes" } } ',
    '{"metadata":{"name":"a\\u0062c"}}',
    '{"a":1.5e3,"b":true,"c":false,"d":null,"spec":{"nodeName":"n"}}',
  ];
  for (const d of docs) {
    for (const path of [NODE, NAME]) {
      const got = jsonStringField(Buffer.from(d), compileJsonPath(path));
      assert.equal(got, byDecode(d, path), `${path.join('.')} of ${d}`);
    }
    // All paths in one pass, as the watch cache reads them, including two under one member.
    const paths = [NODE, NAME, ['metadata', 'namespace'], ['status', 'phase']];
    const all = jsonStringFields(Buffer.from(d), paths.map(compileJsonPath));
    assert.deepEqual(
      all,
      paths.map((p) => byDecode(d, p)),
      `all paths of ${d}`,
    );
  }
});

test('jsonStringField gives up (undefined) where only a decode can tell', () => {
  const cases = [
    '{"sp\\u0065c":{"nodeName":"x"}}', // an escaped key could be "spec"
    '{"spec":{"nodeName":42}}', // String(42) is a decode's business
    '{"spec":{"nodeName":{"a":1}}}',
    '{"spec":{"nodeName":"unterminated}}',
    '',
  ];
  for (const d of cases) {
    assert.equal(jsonStringField(Buffer.from(d), compileJsonPath(NODE)), undefined, d);
    assert.equal(jsonStringFields(Buffer.from(d), [compileJsonPath(NAME), compileJsonPath(NODE)]), undefined, d);
  }
});
