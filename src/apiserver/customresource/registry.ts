/**
 * The dynamic part of the scheme: the resources that established
 * CustomResourceDefinitions serve, like apiextensions-apiserver's
 * crdHandler with its per-CRD storage map. Built-in requests never reach it
 * (the router asks it only after the static scheme's map lookup misses); a
 * custom resource's lookup is one more map lookup. Installing a CRD builds a
 * store per served version over one watch cache; removing it drops them.
 */
import { createHash } from 'node:crypto';
import {
  customResourceInfo,
  customResourceOpenAPIV3,
  storageVersion,
  type CustomResourceDefinition,
  type JSONSchemaProps,
  type ResourceInfo,
  readJSONPath,
} from '../../api/index.js';
import type { ResourcePrinter } from '../registry/printers/index.js';
import type { SubresourceHandler } from '../registry/resource.js';
import type { Strategy } from '../registry/strategy.js';
import type { GenericStore } from '../registry/store.js';
import { customResourceStrategy } from './strategy.js';
import { customResourceScale } from './scale.js';
import { customResourcePrinter } from './table.js';

/** One served version of a custom resource. */
export interface CustomResourceEntry {
  info: ResourceInfo;
  store: GenericStore;
  subresources: Readonly<Record<string, SubresourceHandler>>;
  /** Its Table columns (additionalPrinterColumns). */
  table: ResourcePrinter;
  /** Field-selector getters of its selectableFields (metadata.name and metadata.namespace are every resource's). */
  fieldGetters: Readonly<Record<string, (obj: unknown) => string>>;
}

/** How the server builds a store over its storage and watch cache, and drops a prefix's cache. */
export interface StoreFactory {
  /** A store of `info`; `storedAPIVersion` when objects are stored in another version (conversion None). */
  newStore(info: ResourceInfo, strategy: Strategy, storedAPIVersion?: string): GenericStore;
  dropCache(prefix: string): Promise<void>;
}

/** The custom resources currently served, by group/version/plural and by CRD name. */
export class CustomResources {
  private readonly byGVR = new Map<string, CustomResourceEntry>();
  private readonly byCRD = new Map<string, { crd: CustomResourceDefinition; entries: CustomResourceEntry[] }>();
  private served: ResourceInfo[] = [];
  private hashes = new Map<string, string>();
  /** CRDs being deleted: their objects may be read and deleted, not created. */
  private readonly terminating = new Set<string>();

  constructor(private readonly factory: StoreFactory) {}

  /** The served version at /apis/<group>/<version>/<resource>, or undefined. */
  lookup(group: string, version: string, resource: string): CustomResourceEntry | undefined {
    return this.byGVR.get(`${group}/${version}/${resource}`);
  }

  /** Every served custom resource version, for discovery and OpenAPI (a fresh array only after a change). */
  resources(): readonly ResourceInfo[] {
    return this.served;
  }

  /** The OpenAPI v3 document of a custom group-version, or undefined when no CRD serves it. */
  openAPIV3(group: string, version: string): Record<string, unknown> | undefined {
    const entries: { info: ResourceInfo; schema: JSONSchemaProps | undefined }[] = [];
    for (const { crd, entries: es } of this.byCRD.values()) {
      for (const e of es) {
        if (e.info.group !== group || e.info.version !== version) continue;
        entries.push({
          info: e.info,
          schema: crd.spec.versions.find((v) => v.name === version)?.schema?.openAPIV3Schema,
        });
      }
    }
    return entries.length === 0 ? undefined : customResourceOpenAPIV3(entries);
  }

  /**
   * A hash of what the custom group-version's OpenAPI document is built from (its CRDs' resourceVersions),
   * for /openapi/v3's serverRelativeURL: kubectl caches documents by it. Undefined for other group-versions.
   */
  openAPIHash(group: string, version: string): string | undefined {
    return this.hashes.get(`${group}/${version}`);
  }

  /** The CRDs installed, with their entries. */
  installed(): CustomResourceDefinition[] {
    return [...this.byCRD.values()].map((e) => e.crd);
  }

  /** The store of the CRD's storage version, while it is installed. */
  storageStore(crdName: string): GenericStore | undefined {
    const e = this.byCRD.get(crdName);
    if (e === undefined) return undefined;
    const v = storageVersion(e.crd).name;
    return (e.entries.find((x) => x.info.version === v) ?? e.entries[0])?.store;
  }

  /** The storage-version store of every installed CRD (one per resource, for whole-namespace cleanup). */
  storageStores(): GenericStore[] {
    return [...this.byCRD.keys()].map((n) => this.storageStore(n)).filter((s): s is GenericStore => s !== undefined);
  }

  /** Serves (or re-serves, after a change) every served version of an established CRD. */
  install(crd: CustomResourceDefinition): void {
    const name = crd.metadata?.name ?? '';
    const prev = this.byCRD.get(name);
    if (prev !== undefined && prev.crd.metadata?.resourceVersion === crd.metadata?.resourceVersion) return;
    this.unindex(name);
    const entries: CustomResourceEntry[] = [];
    const stored = storageVersion(crd).name;
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      const info = customResourceInfo(crd, v);
      const strategy = customResourceStrategy(info, v, () => this.terminating.has(name));
      const store =
        v.name === stored
          ? this.factory.newStore(info, strategy)
          : this.factory.newStore(info, strategy, `${crd.spec.group}/${stored}`);
      const subresources: Record<string, SubresourceHandler> = {};
      if (v.subresources?.scale !== undefined) subresources.scale = customResourceScale(v.subresources.scale);
      entries.push({
        info,
        store,
        subresources,
        table: customResourcePrinter(v.additionalPrinterColumns ?? []),
        fieldGetters: fieldGetters(v.selectableFields ?? []),
      });
    }
    this.byCRD.set(name, { crd, entries });
    this.reindex();
  }

  /** Marks a CRD as being deleted: creates of its objects are refused from now on. */
  markTerminating(crdName: string): void {
    this.terminating.add(crdName);
  }

  /** Stops serving a CRD's resources, and drops their watch cache. */
  async remove(crdName: string): Promise<void> {
    this.terminating.delete(crdName);
    const e = this.byCRD.get(crdName);
    if (e === undefined) return;
    this.unindex(crdName);
    this.byCRD.delete(crdName);
    this.reindex();
    await this.factory.dropCache(e.entries[0]?.info.storagePrefix ?? '');
  }

  private unindex(crdName: string): void {
    for (const e of this.byCRD.get(crdName)?.entries ?? [])
      this.byGVR.delete(`${e.info.group}/${e.info.version}/${e.info.resource}`);
  }

  private reindex(): void {
    this.byGVR.clear();
    for (const { entries } of this.byCRD.values())
      for (const e of entries) this.byGVR.set(`${e.info.group}/${e.info.version}/${e.info.resource}`, e);
    this.served = [...this.byGVR.values()].map((e) => e.info);
    const parts = new Map<string, string[]>();
    for (const { crd, entries } of this.byCRD.values()) {
      for (const e of entries) {
        const gv = `${e.info.group}/${e.info.version}`;
        parts.set(gv, [...(parts.get(gv) ?? []), `${crd.metadata?.name ?? ''}@${crd.metadata?.resourceVersion ?? ''}`]);
      }
    }
    this.hashes = new Map(
      [...parts].map(([gv, p]) => [gv, createHash('sha256').update(p.sort().join(',')).digest('hex').slice(0, 32)]),
    );
  }
}

/** selectableFields as field-selector getters: `spec.color` reads .spec.color, printed as a string (empty when absent). */
function fieldGetters(fields: readonly { jsonPath: string }[]): Record<string, (obj: unknown) => string> {
  const out: Record<string, (obj: unknown) => string> = {};
  for (const f of fields) {
    out[f.jsonPath.replace(/^\./, '')] = (o) => {
      const v = readJSONPath(o, f.jsonPath);
      return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
    };
  }
  return out;
}
