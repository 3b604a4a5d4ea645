/** Pods (v1): the pod strategy, with the binding, eviction, log, exec, attach, portforward and resize subresources. */
import type { ResourceDefinition } from '../resource.js';
import { handleBinding } from './binding.js';
import { handleEviction } from './eviction.js';
import { hollowStream } from './exec.js';
import { handleLog } from './log.js';
import { handleResize } from './resize.js';
import { podStrategy } from './strategy.js';
import { podTable } from './table.js';

/** The pods registry entry. */
export const pods: ResourceDefinition = {
  group: '',
  resource: 'pods',
  table: podTable,
  strategy: podStrategy,
  subresources: {
    binding: handleBinding,
    eviction: handleEviction,
    log: handleLog,
    exec: hollowStream('exec into'),
    attach: hollowStream('attach to'),
    portforward: hollowStream('port-forward to'),
    resize: handleResize,
  },
};
