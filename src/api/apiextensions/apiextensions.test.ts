import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CustomResourceDefinition, JSONSchemaProps } from '../types/index.js';
import { errorString } from '../validation/index.js';
import { compileRules, evaluateRules, rulesFor } from './cel.js';
import { crdUnknownFields } from './crd_fields.js';
import { validateCustomResourceDefinition } from './crd_validation.js';
import { readJSONPath } from './jsonpath.js';
import { applySchemaDefaults, unknownFieldPaths } from './pruning.js';
import { validateAgainstSchema } from './schema_validation.js';
import { validateStructural } from './structural.js';

const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['color'],
      properties: {
        color: { type: 'string', enum: ['red', 'green'] },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
        email: { type: 'string', format: 'email' },
        size: { 'x-kubernetes-int-or-string': true },
        nick: { type: 'string', nullable: true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
        items: {
          type: 'array',
          items: { type: 'object', properties: { key: { type: 'string', default: 'k' } } },
        },
      },
    },
  },
};

const messages = (errs: { field: string }[]): string[] => errs.map((e) => errorString(e as never));

test('structural: a schema with a typed root, typed fields and items is structural', () => {
  assert.deepEqual(validateStructural(SCHEMA, 'openAPIV3Schema'), []);
});

test('structural: a missing type, items, $ref or a typed anyOf branch is a cause each', () => {
  const bad: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          untyped: { description: 'no type' },
          list: { type: 'array' },
          ref: { type: 'string', $ref: '#/x' },
          either: { type: 'string', anyOf: [{ type: 'string' }] },
        },
      },
      metadata: { type: 'object', properties: { labels: { type: 'object' } } },
    },
  };
  assert.deepEqual(messages(validateStructural(bad, 'p')), [
    'p.properties[spec].properties[untyped].type: Required value: must not be empty for specified object fields',
    'p.properties[spec].properties[list].items: Required value: must be specified',
    'p.properties[spec].properties[ref].$ref: Forbidden: $ref is not allowed in structural schemas',
    'p.properties[spec].properties[either].anyOf[0].type: Forbidden: must be empty to be structural',
    'p.properties[metadata].properties[labels]: Forbidden: must not be specified',
  ]);
  // int-or-string's anyOf of the two types is allowed, as controller-gen writes it.
  const ios: JSONSchemaProps = {
    type: 'object',
    properties: { x: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
  };
  assert.deepEqual(validateStructural(ios, 'p'), []);
});

test('schema validation: every failing field is its own cause, with kube-openapi texts', () => {
  const obj = {
    apiVersion: 'example.com/v1',
    kind: 'W',
    metadata: { name: 'w' },
    spec: {
      color: 'purple',
      replicas: 11,
      name: 'ABCDEFG',
      email: 'nope',
      size: 1.5,
      nick: null,
      labels: { a: 1 },
      template: { spec: {} },
    },
  };
  assert.deepEqual(messages(validateAgainstSchema(SCHEMA, obj)).sort(), [
    'spec.color: Unsupported value: "purple": supported values: "red", "green"',
    'spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"',
    'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
    'spec.name: Invalid value: "ABCDEFG": spec.name in body should match \'^[a-z]+$\'',
    'spec.name: Too long: may not be more than 5 bytes',
    'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    'spec.size: Invalid value: "number": spec.size in body must be of type integer,string: "number"',
    'spec.template.apiVersion: Required value',
    'spec.template.kind: Required value',
  ]);
  const ok = { spec: { color: 'red', size: '50%', nick: null, template: { apiVersion: 'v1', kind: 'Pod' } } };
  assert.deepEqual(validateAgainstSchema(SCHEMA, ok), []);
  assert.deepEqual(messages(validateAgainstSchema(SCHEMA, { spec: {} })), ['spec.color: Required value']);
});

test('pruning: unknown fields are found at every depth, preserved and embedded parts are kept', () => {
  const obj = {
    apiVersion: 'x/v1',
    kind: 'W',
    metadata: { name: 'w' },
    top: 1,
    spec: {
      color: 'red',
      bogus: true,
      extra: { anything: { goes: 1 } },
      labels: { a: 'b' },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: {}, stray: 1 },
      items: [{ key: 'a', junk: 2 }],
    },
  };
  assert.deepEqual(unknownFieldPaths(SCHEMA, obj), ['top', 'spec.bogus', 'spec.template.stray', 'spec.items[0].junk']);
});

test('defaulting: missing properties get their default, in list items too, and set values stay', () => {
  const obj = { spec: { color: 'red', items: [{}, { key: 'z' }] } };
  applySchemaDefaults(SCHEMA, obj);
  assert.deepEqual(obj.spec, { color: 'red', replicas: 1, items: [{ key: 'k' }, { key: 'z' }] });
  const set = { spec: { replicas: 0 } };
  applySchemaDefaults(SCHEMA, set);
  assert.equal(set.spec.replicas, 0);
});

const RULED: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.min <= self.max', message: 'min must not exceed max' },
        { rule: 'self.name.startsWith("a")', messageExpression: '"name " + self.name + " must start with a"' },
        { rule: 'self.max >= oldSelf.max', message: 'max may only grow' },
      ],
      properties: {
        min: { type: 'integer' },
        max: { type: 'integer' },
        name: { type: 'string' },
        ids: {
          type: 'array',
          items: { type: 'string' },
          'x-kubernetes-validations': [{ rule: 'self.all(x, size(x) < 4)' }],
        },
      },
    },
  },
};

test('CEL: rules see self, messages and messageExpression, list macros', () => {
  const rules = rulesFor(RULED);
  assert.deepEqual(rules.errors, []);
  const errs = evaluateRules(RULED, rules, { spec: { min: 5, max: 2, name: 'bob', ids: ['abcd'] } }, undefined);
  assert.deepEqual(messages(errs), [
    'spec: Invalid value: "object": min must not exceed max',
    'spec: Invalid value: "object": name bob must start with a',
    'spec.ids: Invalid value: "array": failed rule: self.all(x, size(x) < 4)',
  ]);
  assert.deepEqual(evaluateRules(RULED, rules, { spec: { min: 1, max: 2, name: 'al', ids: [] } }, undefined), []);
});

test('CEL: transition rules run only on update, against the old value', () => {
  const rules = rulesFor(RULED);
  const next = { spec: { min: 1, max: 2, name: 'a' } };
  assert.deepEqual(evaluateRules(RULED, rules, next, undefined), []);
  assert.deepEqual(messages(evaluateRules(RULED, rules, next, { spec: { min: 1, max: 3, name: 'a' } })), [
    'spec: Invalid value: "object": max may only grow',
  ]);
});

test('CEL: a rule calling a function the library lacks is refused at compile time, naming it', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: 'quantity(self.q).isGreaterThan(quantity("1"))' }, { rule: 'self.(' }],
    properties: { q: { type: 'string' } },
  };
  const out = messages(compileRules(schema, 'p').errors);
  assert.equal(out.length, 2);
  assert.match(
    out[0]!,
    /^p\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*undeclared reference to 'isGreaterThan', 'quantity'/,
  );
  assert.match(out[1]!, /^p\.x-kubernetes-validations\[1\]\.rule: Invalid value: "self\.\(": compilation failed/);
});

const crd = (
  over: Partial<CustomResourceDefinition['spec']> = {},
  name = 'widgets.example.com',
): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }],
    ...over,
  },
});

test('CRD validation: a good CRD passes; name, group, scope, storage versions and webhooks are refused', () => {
  assert.deepEqual(validateCustomResourceDefinition(crd()), []);
  assert.deepEqual(messages(validateCustomResourceDefinition(crd({}, 'widget.example.com'))), [
    'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
  ]);
  const many = messages(
    validateCustomResourceDefinition(
      crd(
        {
          group: 'example',
          scope: 'Global' as never,
          versions: [
            { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } },
            { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } },
          ],
          conversion: { strategy: 'Webhook' },
        },
        'widgets.example',
      ),
    ),
  );
  assert.deepEqual(many, [
    'spec.group: Invalid value: "example": should be a domain with at least one dot',
    'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    'spec.versions: Invalid value: 2: must have exactly one version marked as storage version',
    'spec.conversion.strategy: Invalid value: "Webhook": conversion webhooks are not supported by kscale: use "None"',
  ]);
  const nonStructural = crd({
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: {} } } },
      },
    ],
  });
  assert.deepEqual(messages(validateCustomResourceDefinition(nonStructural)), [
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
  ]);
});

test('readJSONPath reads dotted paths with list indices', () => {
  assert.equal(readJSONPath({ status: { conditions: [{ type: 'Ready' }] } }, '.status.conditions[0].type'), 'Ready');
});

test('CRD field validation: unknown fields anywhere in the body, schemas and rules included', () => {
  const body = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', labelz: {} },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget', shortname: 'w' },
      versionz: [],
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              'x-kubernetes-validations': [{ rule: 'true', mesage: 'typo' }],
              properties: { spec: { type: 'object', typo: 1, properties: { a: { type: 'string', maxlength: 3 } } } },
            },
          },
        },
      ],
    },
  };
  assert.deepEqual(crdUnknownFields(body), [
    'metadata.labelz',
    'spec.names.shortname',
    'spec.versionz',
    'spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].mesage',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].typo',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].maxlength',
  ]);
  assert.deepEqual(crdUnknownFields(crd()), []);
});
