/**
 * What a resource's folder under registry/ provides, like the REST storage
 * upstream's pkg/registry/<group>/<resource>/storage builds: its strategy and
 * the handlers of its own subresources, and its Table columns (upstream's
 * TableConvertor). `status` needs no handler: every resource whose scheme
 * entry serves it gets the generic one.
 */
import type { ResourceInfo } from '../../api/index.js';
import type { RestContext } from '../endpoints/context.js';
import type { ResourcePrinter } from './printers/index.js';
import type { Strategy, StrategyConfig } from './strategy.js';

/** Serves one request to a subresource (pods/binding, deployments/scale, ...). */
export type SubresourceHandler = (ctx: RestContext) => Promise<void>;

/** One resource's registry entry. */
export interface ResourceDefinition {
  /** The API group of the scheme entry this folder serves ("" for core). */
  group: string;
  /** The plural name of the scheme entry this folder serves. */
  resource: string;
  /** Builds the resource's strategy for one API server. */
  strategy(info: ResourceInfo, cfg: StrategyConfig): Strategy;
  /** kubectl get's columns (`<folder>/table.ts`); without it the Table has Name and Age. */
  table?: ResourcePrinter;
  /** Handlers of the subresources other than status, by name. */
  subresources?: Readonly<Record<string, SubresourceHandler>>;
  /** For each other served version (CONVERTED_RESOURCES), its conversion to and from the stored version. */
  conversions?: Readonly<Record<string, VersionConversion>>;
}

/** Converts one served version's objects to and from the storage version (upstream's scheme conversion funcs). */
export interface VersionConversion {
  toStored(obj: Record<string, unknown>): Record<string, unknown>;
  fromStored(obj: Record<string, unknown>): Record<string, unknown>;
}
