/**
 * slowStartBatch, like the ReplicaSet and Job controllers': calls run in
 * batches of 1, 2, 4, ... in parallel; the first batch with an error stops
 * the rest, so a failing create (quota, admission) costs one call, not
 * hundreds.
 */

/** Runs `fn` `count` times in doubling batches; returns the successes and the first error. */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
): Promise<{ successes: number; error: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    let error: unknown;
    for (const r of results) {
      if (r.status === 'fulfilled') successes++;
      else error ??= r.reason;
    }
    if (error !== undefined) return { successes, error };
    remaining -= batch;
  }
  return { successes, error: undefined };
}
