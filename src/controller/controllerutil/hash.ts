/**
 * Hashes of templates and revisions, like controller.ComputeHash and
 * history.HashControllerRevision: fnv32a over a canonical JSON text (plus the
 * collision count), encoded with upstream's safe alphabet.
 */

/** The JSON of `v` with keys sorted, so equal objects have equal text. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function fnv32a(data: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of data) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** The hash of a pod template (or a revision's data), like controller.ComputeHash: fnv32a, plus the collision count, safe-encoded. */
export function computeHash(template: unknown, collisionCount: number | undefined): string {
  const text = Buffer.from(canonical(dropNullish(template ?? {}) ?? {}));
  let data: Uint8Array = text;
  if (collisionCount !== undefined) {
    const extra = Buffer.alloc(8);
    extra.writeUInt32LE(collisionCount >>> 0, 0);
    data = Buffer.concat([text, extra]);
  }
  return [...String(fnv32a(data))].map((c) => SAFE_ALPHANUMS[c.charCodeAt(0) % SAFE_ALPHANUMS.length]).join('');
}

/**
 * Drops nulls and empty objects, as Go's typed comparison sees them: kubectl
 * sends a template with `creationTimestamp: null` and `resources: {}`, which
 * upstream decodes to the same structs as a template without them.
 */
export function dropNullish(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNullish);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const y = dropNullish(x);
      if (y !== undefined) out[k] = y;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v === null ? undefined : v;
}
