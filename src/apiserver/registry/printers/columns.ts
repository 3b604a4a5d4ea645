/**
 * Column-definition builders. Every printer's first column is the object name
 * (format "name") and most have an Age column documented as creationTimestamp.
 */
import { docs } from './docs.js';
import type { TableColumnDefinition } from '../../../api/index.js';

/** A column with upstream's defaults: empty format, priority 0 unless `wide`. */
export function column(
  name: string,
  type: 'string' | 'integer' | 'boolean' | 'number' | 'date',
  description: string,
  opts: { wide?: boolean; format?: string } = {},
): TableColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.wide ? 1 : 0 };
}

/** The Name column every printer starts with. */
export function nameColumn(opts: { wide?: boolean } = {}): TableColumnDefinition {
  return column('Name', 'string', docs.objectMetaName, { format: 'name', wide: opts.wide });
}

/** The Age column, rendered from metadata.creationTimestamp. */
export function ageColumn(): TableColumnDefinition {
  return column('Age', 'string', docs.objectMetaCreationTimestamp);
}

/** The wide Containers and Images columns of the workloads that stamp out a pod template. */
export function containerColumns(): TableColumnDefinition[] {
  return [
    column('Containers', 'string', 'Names of each container in the template.', { wide: true }),
    column('Images', 'string', 'Images referenced by each container in the template.', { wide: true }),
  ];
}

/** The wide Containers, Images and Selector columns of the workloads that stamp out a pod template. */
export function templateColumns(selectorDoc: string): TableColumnDefinition[] {
  return [...containerColumns(), column('Selector', 'string', selectorDoc, { wide: true })];
}
