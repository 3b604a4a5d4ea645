/**
 * Maintains the bootstrap configuration, like upstream's
 * registry/flowcontrol/ensurer: missing objects are created; mandatory ones
 * always get their spec back; a suggested one is kept up to date while its
 * `apf.kubernetes.io/autoupdate-spec` annotation is "true" (absent counts as
 * "true" only while the object was never changed, generation 1).
 */
import { isNotFoundError } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import { deepCopy, meta, type Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';
import {
  AUTOUPDATE_ANNOTATION,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from './bootstrap.js';

/** The two stores the ensurer writes. */
export interface FlowControlStores {
  flowSchemas: GenericStore;
  priorityLevels: GenericStore;
}

const specOf = (o: Obj): string => JSON.stringify(o.spec ?? {});

/** The spec and annotation a bootstrap object should have now, or null when it is right as it is. */
export function desiredUpdate(current: Obj, want: Obj, mandatory: boolean): Obj | null {
  const m = meta(current);
  const annotations = (m.annotations ?? {}) as Record<string, string>;
  const value = annotations[AUTOUPDATE_ANNOTATION];
  const auto = mandatory || (value === undefined ? m.generation === 1 : value === 'true');
  const annotation = String(auto);
  const specWrong = auto && specOf(current) !== specOf(want);
  if (!specWrong && value === annotation) return null;
  const next = deepCopy(current);
  const nm = meta(next);
  nm.annotations = { ...((nm.annotations ?? {}) as Record<string, string>), [AUTOUPDATE_ANNOTATION]: annotation };
  if (specWrong) {
    next.spec = deepCopy(want.spec as Obj);
    nm.generation = ((nm.generation as number | undefined) ?? 1) + 1;
  }
  return next;
}

/** Creates or reconciles one bootstrap object. */
export async function ensureObject(store: GenericStore, want: Obj, mandatory: boolean, clock: Clock): Promise<void> {
  const name = meta(want).name as string;
  try {
    const current = await store.get(undefined, name);
    if (desiredUpdate(current, want, mandatory) === null) return;
    await store.guaranteedUpdate(
      undefined,
      name,
      (cur) => (cur === null ? Promise.reject(new Error('gone')) : (desiredUpdate(cur, want, mandatory) ?? cur)),
      { allowCreate: false, dryRun: false },
    );
  } catch (err) {
    if (!isNotFoundError(err) && (err as Error).message !== 'gone') throw err;
    const obj = deepCopy(want);
    meta(obj).annotations = { [AUTOUPDATE_ANNOTATION]: 'true' };
    try {
      await store.create(obj, { now: clock.now(), dryRun: false });
    } catch (e) {
      if ((e as { reason?: string }).reason !== 'AlreadyExists') throw e;
    }
  }
}

/** One maintenance pass over every bootstrap object, priority levels first. */
export async function ensureBootstrapConfiguration(stores: FlowControlStores, clock: Clock): Promise<void> {
  for (const o of MANDATORY_PRIORITY_LEVELS) await ensureObject(stores.priorityLevels, o, true, clock);
  for (const o of SUGGESTED_PRIORITY_LEVELS) await ensureObject(stores.priorityLevels, o, false, clock);
  for (const o of MANDATORY_FLOW_SCHEMAS) await ensureObject(stores.flowSchemas, o, true, clock);
  for (const o of SUGGESTED_FLOW_SCHEMAS) await ensureObject(stores.flowSchemas, o, false, clock);
}

/** Recreates a mandatory object that was just deleted. */
export async function restoreMandatory(
  stores: FlowControlStores,
  kind: 'FlowSchema' | 'PriorityLevelConfiguration',
  name: string,
  clock: Clock,
): Promise<void> {
  const list = kind === 'FlowSchema' ? MANDATORY_FLOW_SCHEMAS : MANDATORY_PRIORITY_LEVELS;
  const want = list.find((o) => o.metadata?.name === name);
  if (want === undefined) return;
  await ensureObject(kind === 'FlowSchema' ? stores.flowSchemas : stores.priorityLevels, want as Obj, true, clock);
}
