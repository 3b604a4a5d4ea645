/**
 * What a kubelet reads for its pods, so the Node authorizer and RBAC see a real node's load:
 * - Secrets and ConfigMaps that pods reference (volumes, env, envFrom, image pull secrets), each
 *   watched on its own with `fieldSelector=metadata.name=<n>` while any pod of the node uses it,
 *   as the kubelet's default `Watch` change-detection strategy (pkg/kubelet/util/manager's
 *   WatchBasedManager) does, reference-counted across pods;
 * - a ServiceAccount token per pod (TokenRequest bound to the pod), as the kubelet's token manager
 *   does for the projected token volume, refreshed as it does: at 80% of the token's lifetime (the
 *   lifetime the server granted, which may differ from the one asked for) or after 24 h, whichever
 *   comes first, until the pod goes.
 */
import {
  RESOURCES,
  Reflector,
  listWatchFor,
  stripManagedFields,
  type ClientLogger,
  type ReflectorOptions,
  type ReflectorStore,
  type RESTClient,
  type Stopper,
} from '../client/index.js';
import type { Clock, Timer } from '../clock/index.js';
import { podReferencedNames, type ConfigMap, type KubeObject, type Pod, type Secret } from '../api/index.js';

/** Which of a pod's references the kubelet reads: watch (as upstream's default) or none. */
export type PodReferencesMode = 'watch' | 'none';

/** Counters of a node's reference manager. */
export interface PodReferenceStats {
  /** Per-object watches open now. */
  watches: number;
  /** ServiceAccount tokens requested (first ones and refreshes), and of those the refreshes. */
  tokens: number;
  tokenRefreshes: number;
  errors: number;
}

/** The kubelet's projected token default (3607 s), and its token manager's refresh rules. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3607;
const MAX_TOKEN_TTL_MS = 24 * 3600_000;
const TOKEN_RETRY_MS = 10_000;

/** When the kubelet's token manager refreshes a token granted for `ttlSeconds`: at 80% of it, or after 24 h. */
export function tokenRefreshDelayMs(ttlSeconds: number): number {
  return Math.min(ttlSeconds * 1000 * 0.8, MAX_TOKEN_TTL_MS);
}

/** What the manager needs. */
export interface PodReferenceManagerOptions {
  /** The node's client; watches and token requests go over it. */
  rest: RESTClient;
  node: string;
  clock: Clock;
  random: () => number;
  logger: ClientLogger;
  /** The TokenRequest's expirationSeconds (the projected volume's; kubelet default 3607). */
  tokenExpirationSeconds?: number;
}

/** The one object a reference watch keeps (the list by name returns it or nothing). */
export class ReferencedObject<T> implements ReflectorStore<T> {
  object: T | undefined;
  /** Whether the first list succeeded, i.e. the Node authorizer let this node read the object. */
  synced = false;

  replace(items: T[]): void {
    this.object = items[0];
    this.synced = true;
  }
  add(obj: T): void {
    this.object = obj;
  }
  update(obj: T): void {
    this.object = obj;
  }
  delete(): void {
    this.object = undefined;
  }
}

interface Watched {
  pods: number;
  stop: Stopper;
  store: ReferencedObject<unknown>;
}

/** One node's Secret and ConfigMap watches and its pods' ServiceAccount tokens. */
export class PodReferenceManager {
  private readonly watched = new Map<string, Watched>();
  private readonly pods = new Map<string, string[]>();
  private readonly refresh = new Map<string, Timer>();
  readonly stats: PodReferenceStats = { watches: 0, tokens: 0, tokenRefreshes: 0, errors: 0 };

  constructor(private readonly o: PodReferenceManagerOptions) {}

  /** Registers a pod (once per uid): watches what it references and requests its ServiceAccount token. */
  registerPod(pod: Pod): void {
    const key = podKey(pod);
    if (key === undefined || this.pods.has(key)) return;
    const ns = pod.metadata!.namespace ?? 'default';
    const refs = podReferencedNames(pod);
    const keys = [
      ...refs.secrets.map((n) => this.watch<Secret>('secrets', ns, n)),
      ...refs.configMaps.map((n) => this.watch<ConfigMap>('configmaps', ns, n)),
    ];
    this.pods.set(key, keys);
    // Only what the TokenRequest names: the refresh timer keeps it for the token's life (48 of its 60 minutes), and
    // with the whole pod it kept every pod's first decoded version alive beside the informer's current one.
    const m = pod.metadata!;
    void this.requestToken(
      { name: m.name!, uid: m.uid, serviceAccount: pod.spec?.serviceAccountName ?? 'default' },
      ns,
      key,
    );
  }

  /** Unregisters a pod; watches nobody else needs are stopped. */
  unregisterPod(pod: Pod): void {
    const key = podKey(pod);
    const keys = key !== undefined ? this.pods.get(key) : undefined;
    if (keys === undefined) return;
    this.pods.delete(key!);
    this.refresh.get(key!)?.cancel();
    this.refresh.delete(key!);
    for (const k of keys) {
      const w = this.watched.get(k);
      if (w === undefined || --w.pods > 0) continue;
      this.watched.delete(k);
      this.stats.watches--;
      void w.stop.stop();
    }
  }

  /** Watches whose first list succeeded (the Node authorizer let this node read the object). */
  syncedWatches(): number {
    let n = 0;
    for (const w of this.watched.values()) if (w.store.synced) n++;
    return n;
  }

  /** Stops every watch. */
  async stop(): Promise<void> {
    const all = [...this.watched.values()];
    this.watched.clear();
    this.pods.clear();
    for (const t of this.refresh.values()) t.cancel();
    this.refresh.clear();
    this.stats.watches = 0;
    await Promise.all(all.map((w) => w.stop.stop()));
  }

  private watch<T extends KubeObject>(resource: 'secrets' | 'configmaps', namespace: string, name: string): string {
    const key = `${resource}/${namespace}/${name}`;
    const have = this.watched.get(key);
    if (have !== undefined) {
      have.pods++;
      return key;
    }
    const { stop, store } = watchReference<T>(this.o.rest, resource, namespace, name, {
      name: `${key}@${this.o.node}`,
      clock: this.o.clock,
      random: this.o.random,
      logger: this.o.logger,
    });
    this.watched.set(key, { pods: 1, stop, store });
    this.stats.watches++;
    return key;
  }

  private async requestToken(pod: TokenPod, namespace: string, key: string, refresh = false): Promise<void> {
    const sa = pod.serviceAccount;
    let next = TOKEN_RETRY_MS;
    try {
      const tr = await this.o.rest.request<{ spec?: { expirationSeconds?: number } }>({
        method: 'POST',
        path: `${this.o.rest.resource(RESOURCES.serviceaccounts).path(namespace, sa)}/token`,
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: {
            expirationSeconds: this.o.tokenExpirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS,
            boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid },
          },
        },
      });
      this.stats.tokens++;
      if (refresh) this.stats.tokenRefreshes++;
      const ttl = tr?.spec?.expirationSeconds ?? this.o.tokenExpirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
      next = tokenRefreshDelayMs(ttl);
    } catch (err) {
      this.stats.errors++;
      this.o.logger.warn(
        { node: this.o.node, pod: `${namespace}/${pod.name}`, err: String(err) },
        'requesting the service account token failed; retrying',
      );
    }
    // The pod may have gone while the request was out.
    if (!this.pods.has(key)) return;
    this.refresh.set(
      key,
      this.o.clock.setTimeout(() => void this.requestToken(pod, namespace, key, true), next),
    );
  }
}

/**
 * Watches one referenced object as a kubelet does: a reflector (list by name, then watch) into a one-object
 * store, as the kubelet's watch-based manager keeps one per object; a SharedInformer (indexer, namespace
 * index, handler set) per reference cost memory 127,000 times over. Managed fields are dropped.
 */
export function watchReference<T extends KubeObject>(
  rest: RESTClient,
  resource: 'secrets' | 'configmaps',
  namespace: string,
  name: string,
  opts: Pick<ReflectorOptions, 'name' | 'clock' | 'random' | 'logger'>,
): { stop: Stopper; store: ReferencedObject<T> } {
  const store = new ReferencedObject<T>();
  const reflector = new Reflector<T>(
    listWatchFor(rest.resource<T>(RESOURCES[resource]), { namespace, fieldSelector: `metadata.name=${name}` }),
    store,
    { ...opts, transform: stripManagedFields },
  );
  return { stop: reflector.run(), store };
}

/** What a pod's TokenRequest names. */
interface TokenPod {
  name: string;
  uid: string | undefined;
  serviceAccount: string;
}

function podKey(pod: Pod): string | undefined {
  const m = pod.metadata;
  return m?.name === undefined ? undefined : `${m.namespace ?? ''}/${m.name}/${m.uid ?? ''}`;
}
