/**
 * CustomResourceDefinition validation, after apiextensions-apiserver's
 * pkg/apis/apiextensions/validation: the name is `<plural>.<group>`, the
 * group a domain with a dot, names DNS-1035 labels, scope Namespaced or
 * Cluster, served versions with exactly one storage version, structural
 * schemas, conversion None (kscale runs no conversion webhooks), and CEL
 * rules that compile.
 */
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from '../meta.js';
import type { CustomResourceDefinition, JSONSchemaProps } from '../types/index.js';
import {
  child,
  duplicate,
  fromMessages,
  immutable,
  index,
  invalidValue,
  notSupported,
  required,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type ErrorList,
} from '../validation/index.js';
import { compileRules } from './cel.js';
import { validateStructural } from './structural.js';

const SCOPES = ['Cluster', 'Namespaced'];

/** Field errors of a new CRD; [] when valid. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): ErrorList {
  const errs = validateObjectMeta(crd.metadata, false, nameIsDNSSubdomain);
  const spec = crd.spec ?? ({} as CustomResourceDefinition['spec']);
  const group = spec.group ?? '';
  const plural = spec.names?.plural ?? '';
  const name = crd.metadata?.name ?? '';
  if (name !== '' && name !== `${plural}.${group}`)
    errs.push(invalidValue('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  if (group === '') errs.push(required('spec.group'));
  else {
    errs.push(...fromMessages('spec.group', group, isDNS1123Subdomain(group)));
    if (!group.includes('.')) errs.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'));
  }
  if (spec.scope === undefined || (spec.scope as string) === '') errs.push(required('spec.scope'));
  else if (!SCOPES.includes(spec.scope)) errs.push(notSupported('spec.scope', spec.scope, SCOPES));
  errs.push(...validateNames(spec.names, 'spec.names'));
  errs.push(...validateVersions(crd));
  const strategy = spec.conversion?.strategy ?? 'None';
  if (strategy === 'Webhook')
    errs.push(
      invalidValue('spec.conversion.strategy', strategy, 'conversion webhooks are not supported by kscale: use "None"'),
    );
  else if (strategy !== 'None') errs.push(notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  if (spec.preserveUnknownFields === true)
    errs.push(invalidValue('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  return errs;
}

/** Field errors of a CRD update: the create rules, metadata identity, and the immutable group and scope. */
export function validateCustomResourceDefinitionUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
): ErrorList {
  const errs = validateCustomResourceDefinition(crd).filter((e) => !e.field.startsWith('metadata.'));
  errs.push(...validateObjectMetaUpdate(crd.metadata, old.metadata));
  if (crd.spec?.group !== old.spec?.group) errs.push(immutable('spec.group', crd.spec?.group));
  if (crd.spec?.scope !== old.spec?.scope) errs.push(immutable('spec.scope', crd.spec?.scope));
  return errs;
}

function validateNames(names: CustomResourceDefinition['spec']['names'] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  if (names === undefined) return [required(path)];
  const label = (field: string, v: string | undefined, must: boolean): void => {
    if (v === undefined || v === '') {
      if (must) errs.push(required(child(path, field)));
      return;
    }
    errs.push(...fromMessages(child(path, field), v, isDNS1035Label(v)));
  };
  label('plural', names.plural, true);
  label('singular', names.singular, false);
  if (names.kind === undefined || names.kind === '') errs.push(required(child(path, 'kind')));
  else errs.push(...fromMessages(child(path, 'kind'), names.kind, isDNS1035Label(names.kind.toLowerCase())));
  if (names.listKind !== undefined && names.listKind !== '') {
    errs.push(...fromMessages(child(path, 'listKind'), names.listKind, isDNS1035Label(names.listKind.toLowerCase())));
    if (names.listKind === names.kind)
      errs.push(invalidValue(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  }
  (names.shortNames ?? []).forEach((s, i) =>
    errs.push(...fromMessages(index(child(path, 'shortNames'), i), s, isDNS1035Label(s))),
  );
  (names.categories ?? []).forEach((s, i) =>
    errs.push(...fromMessages(index(child(path, 'categories'), i), s, isDNS1035Label(s))),
  );
  return errs;
}

function validateVersions(crd: CustomResourceDefinition): ErrorList {
  const errs: ErrorList = [];
  const versions = crd.spec?.versions ?? [];
  if (versions.length === 0)
    return [invalidValue('spec.versions', versions, 'must have exactly one version marked as storage version')];
  const seen = new Set<string>();
  let storage = 0;
  let served = 0;
  versions.forEach((v, i) => {
    const p = index('spec.versions', i);
    if (v.name === undefined || v.name === '') errs.push(required(child(p, 'name')));
    else {
      errs.push(...fromMessages(child(p, 'name'), v.name, isDNS1035Label(v.name)));
      if (seen.has(v.name)) errs.push(duplicate(child(p, 'name'), v.name));
      seen.add(v.name);
    }
    if (v.storage === true) storage++;
    if (v.served === true) served++;
    const schema = v.schema?.openAPIV3Schema;
    const sp = child(p, 'schema', 'openAPIV3Schema');
    if (schema === undefined) errs.push(required(sp, 'schemas are required'));
    else errs.push(...validateStructural(schema, sp), ...validateRulesCompile(schema, sp));
    const scale = v.subresources?.scale;
    if (scale !== undefined) {
      const sc = child(p, 'subresources', 'scale');
      if (!scale.specReplicasPath?.startsWith('.spec'))
        errs.push(
          invalidValue(
            child(sc, 'specReplicasPath'),
            scale.specReplicasPath ?? '',
            'should be a json path under .spec',
          ),
        );
      if (!scale.statusReplicasPath?.startsWith('.status'))
        errs.push(
          invalidValue(
            child(sc, 'statusReplicasPath'),
            scale.statusReplicasPath ?? '',
            'should be a json path under .status',
          ),
        );
    }
    (v.additionalPrinterColumns ?? []).forEach((c, j) => {
      const cp = index(child(p, 'additionalPrinterColumns'), j);
      if (!c.name) errs.push(required(child(cp, 'name')));
      if (!c.jsonPath) errs.push(required(child(cp, 'jsonPath')));
      const types = ['boolean', 'date', 'integer', 'number', 'string'];
      if (!types.includes(c.type)) errs.push(notSupported(child(cp, 'type'), c.type, types));
    });
  });
  if (storage !== 1)
    errs.push(
      invalidValue('spec.versions', versions.length, 'must have exactly one version marked as storage version'),
    );
  if (served === 0) errs.push(invalidValue('spec.versions', versions.length, 'must have at least one served version'));
  return errs;
}

/** Every x-kubernetes-validations rule must compile; one the CEL library cannot run is refused, never skipped. */
function validateRulesCompile(schema: JSONSchemaProps, path: string): ErrorList {
  return compileRules(schema, path).errors;
}
