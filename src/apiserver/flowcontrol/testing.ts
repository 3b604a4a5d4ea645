/** Test helpers for flow control: a controller configured with upstream's bootstrap objects. */
import type { FlowSchema } from '../../api/index.js';
import { FakeClock } from '../../clock/index.js';
import type { Obj } from '../object.js';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from './bootstrap.js';
import { APFController } from './controller.js';

/** An APF controller for 600 seats with every mandatory and suggested object, plus `extra` FlowSchemas. */
export function bootstrappedController(clock = new FakeClock(), extra: FlowSchema[] = []): APFController {
  const c = new APFController({
    clock,
    serverConcurrencyLimit: 600,
    stats: { objectCount: () => undefined, listFromStorage: () => false },
  });
  c.priorityLevelHandler.replace([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS] as Obj[]);
  c.flowSchemaHandler.replace([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS, ...extra] as Obj[]);
  return c;
}
