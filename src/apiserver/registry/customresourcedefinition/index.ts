/**
 * CustomResourceDefinitions (apiextensions.k8s.io/v1), like upstream's
 * pkg/registry/customresourcedefinition: validation of names, versions and
 * structural schemas; a new CRD carries the customresourcecleanup finalizer,
 * so deleting it first deletes its objects (the CRD controller's finalizing
 * part); status is written by the CRD controller through /status.
 */
import {
  crdUnknownFields,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionUpdate,
  type CustomResourceDefinition,
} from '../../../api/index.js';
import { meta, type Obj } from '../../object.js';
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { customResourceDefinitionTable } from './table.js';

/** The finalizer that makes a CRD's deletion delete its custom objects first. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

const crd = (o: Obj): CustomResourceDefinition => o as unknown as CustomResourceDefinition;

/** The customresourcedefinitions registry entry. */
export const customResourceDefinitions: ResourceDefinition = {
  group: 'apiextensions.k8s.io',
  resource: 'customresourcedefinitions',
  table: customResourceDefinitionTable,
  strategy: (info) =>
    genericStrategy(info, {
      tracksGeneration: true,
      alwaysHasStatus: true,
      applyDefaults: (o) => {
        const c = crd(o);
        if (c.status === undefined || c.status === null) c.status = {};
        const spec = c.spec as CustomResourceDefinition['spec'] | undefined;
        if (spec === undefined) return;
        spec.conversion ??= { strategy: 'None' };
        const names = spec.names as CustomResourceDefinition['spec']['names'] | undefined;
        if (names !== undefined && typeof names.kind === 'string') {
          names.singular ??= names.kind.toLowerCase();
          names.listKind ??= `${names.kind}List`;
        }
      },
      prepareForCreate: (o) => {
        const m = meta(o);
        const f = (m.finalizers as string[] | undefined) ?? [];
        if (!f.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) m.finalizers = [...f, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
        o.status = { storedVersions: [], conditions: [], acceptedNames: { plural: '', kind: '' } };
      },
      unknownFields: (o) => crdUnknownFields(o),
      validate: (o) => validateCustomResourceDefinition(crd(o)),
      validateUpdate: (o, old) => validateCustomResourceDefinitionUpdate(crd(o), crd(old)),
    }),
};
