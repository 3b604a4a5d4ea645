import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileFieldSelector, escapeFieldValue, parseFieldSelector, unescapeFieldValue } from './fields.js';
import { selectableFields, supportedFieldLabels } from './selectable.js';
import { StatusError } from './status.js';

test('parses multiple terms with =, == and != (kubectl describe node)', () => {
  const s = parseFieldSelector('spec.nodeName=node-a,status.phase!=Succeeded,status.phase!=Failed');
  assert.equal(s.requirements.length, 3);
  assert.equal(s.requiresExactMatch('spec.nodeName'), 'node-a');
  assert.equal(s.matches({ 'spec.nodeName': 'node-a', 'status.phase': 'Running' }), true);
  assert.equal(s.matches({ 'spec.nodeName': 'node-a', 'status.phase': 'Failed' }), false);
  assert.equal(parseFieldSelector('a==b').requirements[0].value, 'b');
});

test('empty values and empty selectors', () => {
  assert.equal(parseFieldSelector('').empty, true);
  const s = parseFieldSelector('involvedObject.namespace=');
  assert.equal(s.matches({ 'involvedObject.namespace': '' }), true);
  assert.equal(s.matches({}), true, 'a missing field reads as ""');
});

test('escaped commas and equals are data; bad escapes fail', () => {
  const s = parseFieldSelector('metadata.name=a\\,b\\=c,x=y');
  assert.equal(s.requiresExactMatch('metadata.name'), 'a,b=c');
  assert.equal(escapeFieldValue('a,b=c\\'), 'a\\,b\\=c\\\\');
  assert.equal(unescapeFieldValue(escapeFieldValue('x=,\\y')), 'x=,\\y');
  assert.throws(() => parseFieldSelector('a=b\\n'), /invalid escape sequence: \\n/);
  assert.throws(() => parseFieldSelector('a=b=c'), /unescaped character in value: =/);
  assert.throws(
    () => parseFieldSelector('nooperator'),
    (e: unknown) => e instanceof StatusError && e.code === 400 && /can't understand 'nooperator'/.test(e.message),
  );
});

test('compiled selectors read fields straight from objects', () => {
  const m = compileFieldSelector('pods', 'spec.nodeName=n1,status.phase!=Failed,metadata.namespace=default');
  const pod = { metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
  assert.equal(m.matches(pod), true);
  assert.equal(m.matches({ ...pod, spec: { nodeName: 'n2' } }), false);
  assert.equal(compileFieldSelector('pods', 'spec.hostNetwork=false').matches(pod), true, 'absent bool reads "false"');
});

test('unsupported field labels are a 400 "field label not supported"', () => {
  assert.throws(
    () => compileFieldSelector('pods', 'spec.foo=bar'),
    (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'field label not supported: spec.foo',
  );
  assert.throws(
    () => compileFieldSelector('nodes', 'metadata.namespace=x', false),
    /field label not supported: metadata.namespace/,
  );
  assert.doesNotThrow(() => compileFieldSelector('nodes', 'spec.unschedulable=true', false));
});

test('selectable field maps follow upstream per resource', () => {
  const pod = {
    metadata: { name: 'p', namespace: 'ns' },
    spec: { nodeName: 'n1', hostNetwork: true },
    status: { podIPs: [{ ip: '10.0.0.5' }] },
  };
  const f = selectableFields('pods', pod);
  assert.equal(f['spec.nodeName'], 'n1');
  assert.equal(f['spec.hostNetwork'], 'true');
  assert.equal(f['status.podIP'], '10.0.0.5');
  assert.equal(selectableFields('jobs', { status: { succeeded: 3 } })['status.successful'], '3');
  assert.equal(selectableFields('replicasets', {})['status.replicas'], '0');
  assert.equal(selectableFields('events', { source: { component: 'kubelet' } }).source, 'kubelet');
  assert.deepEqual(supportedFieldLabels('configmaps'), ['metadata.name', 'metadata.namespace']);
  assert.ok(supportedFieldLabels('events').includes('involvedObject.uid'));
});
