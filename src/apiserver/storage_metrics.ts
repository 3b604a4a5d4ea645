/**
 * A Storage decorator that times every call into etcd_request_duration_seconds
 * by operation and object type, as kube-apiserver's etcd3 store does.
 */
import type { Storage } from '../storage/index.js';
import type { ApiServerMetrics } from './metrics.js';

const TIMED = ['get', 'list', 'create', 'guaranteedUpdate', 'delete', 'currentRevision'] as const;

/** Wraps `storage` so each call observes its latency under `type` (the resource). */
export function instrumentStorage(storage: Storage, metrics: ApiServerMetrics, type: string): Storage {
  const wrapped = Object.create(storage) as Storage;
  for (const op of TIMED) {
    const fn = storage[op].bind(storage) as (...args: unknown[]) => Promise<unknown>;
    (wrapped as unknown as Record<string, unknown>)[op] = async (...args: unknown[]) => {
      const end = metrics.storageDuration.startTimer({ operation: op, type });
      try {
        return await fn(...args);
      } finally {
        end();
      }
    };
  }
  return wrapped;
}
