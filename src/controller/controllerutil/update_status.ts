/**
 * The status write the workload controllers share: skipped when no computed
 * field moved and the generation was already observed, otherwise sent with
 * observedGeneration and retried once on a conflict against a fresh read,
 * like upstream's updateDaemonSetStatus / updateStatefulSetStatus.
 */
import type { KubeObject } from '../../api/index.js';
import { isConflictError, isNotFoundError, type ResourceClient } from '../../client/index.js';

type WithStatus = KubeObject & { status?: object };

/** Writes `computed` over obj.status when it changed; a vanished object is not an error. */
export async function updateStatusIfChanged<T extends WithStatus>(
  client: ResourceClient<T>,
  obj: T,
  computed: Record<string, unknown>,
): Promise<void> {
  const generation = obj.metadata?.generation ?? 0;
  const cur = (obj.status ?? {}) as Record<string, unknown>;
  const same = Object.entries(computed).every(([k, v]) => (cur[k] ?? 0) === v);
  if (same && (cur.observedGeneration ?? 0) === generation) return;
  let latest = obj;
  const namespace = obj.metadata!.namespace!;
  for (let attempt = 0; ; attempt++) {
    // The generation the status was computed from, even when the retry writes onto a newer object: claiming the newer
    // generation would tell clients (kubectl rollout status) that a spec the controller has not seen is done.
    const next = { ...latest, status: { ...(latest.status ?? {}), ...computed, observedGeneration: generation } };
    try {
      await client.updateStatus(next, { namespace });
      return;
    } catch (err) {
      if (isNotFoundError(err)) return;
      if (attempt >= 1 || !isConflictError(err)) throw err;
      latest = await client.get(latest.metadata!.name!, { namespace });
    }
  }
}
