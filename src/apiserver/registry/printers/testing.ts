/** Fixtures the Table tests share: a fixed clock, timestamps relative to it, and a workload's pod template. */

/** The tests' "now", in milliseconds since the epoch. */
export const now = Date.parse('2025-06-01T12:00:00Z');

/** The RFC3339 time `ms` milliseconds before `now`. */
export function ago(ms: number): string {
  return new Date(now - ms).toISOString();
}

/** ObjectMeta of an object created 45 s before `now`. */
export function meta(name: string, namespace?: string): Record<string, unknown> {
  return { name, namespace, uid: `uid-${name}`, creationTimestamp: ago(45_000) };
}

/** A two-container pod template, as Deployments, ReplicaSets and Jobs carry. */
export const template = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1.27' },
      { name: 'log', image: 'fluent-bit:3' },
    ],
  },
};
