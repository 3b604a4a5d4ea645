/**
 * Reads acknowledged writes back after a fault, on every API server directly: each server must return each
 * acknowledged ConfigMap from a consistent GET and a consistent LIST (no resourceVersion), since a client may land
 * on any of them after the load balancer's next pick. A write one server misses is lost or hidden for its clients.
 */
import { isNotFoundError, RESOURCES, type RESTClient } from '../../client/index.js';

/** What the read-back found. */
export interface ReadBackResult {
  /** Acknowledged writes missing from a GET or the LIST of at least one server. */
  lost: number;
  /** Per server that missed some, its name and how many it missed. */
  missingOn: { server: string; missing: number }[];
}

/** Reads `names` in `namespace` back through each of `servers` (name and client). */
export async function readBackEverywhere(
  servers: readonly { name: string; client: RESTClient }[],
  namespace: string,
  names: readonly string[],
): Promise<ReadBackResult> {
  const lostAnywhere = new Set<string>();
  const missingOn: ReadBackResult['missingOn'] = [];
  for (const s of servers) {
    const missing = await missingFrom(s.client, namespace, names);
    for (const n of missing) lostAnywhere.add(n);
    if (missing.length > 0) missingOn.push({ server: s.name, missing: missing.length });
  }
  return { lost: lostAnywhere.size, missingOn };
}

/** The names a consistent LIST or a consistent GET of one server does not return. */
async function missingFrom(client: RESTClient, namespace: string, names: readonly string[]): Promise<string[]> {
  const cms = client.resource(RESOURCES.configmaps);
  const listed = new Set(
    (await cms.list({ namespace })).items.map((cm) => (cm as { metadata?: { name?: string } }).metadata?.name),
  );
  const missing: string[] = [];
  for (const name of names) {
    const found = await cms
      .get(name, { namespace })
      .then(() => true)
      .catch((err: unknown) => (isNotFoundError(err) ? false : Promise.reject(err as Error)));
    if (!found || !listed.has(name)) missing.push(name);
  }
  return missing;
}
