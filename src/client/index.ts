/**
 * The public surface of src/client, kscale's client-go: a REST client with
 * kubeconfig loading, QPS/burst limiting and Retry-After handling; cache/
 * (Reflector, SharedInformer, Indexer, Lister); informers/
 * (SharedInformerFactory); workqueue/. Components import the client from
 * here only.
 */
import type { KubeObject } from '../api/index.js';
import { listWatchFor, type ListWatchScope } from './cache/listwatch.js';
import { SharedInformer, type SharedInformerOptions } from './cache/shared_informer.js';
import type { RESTClient } from './rest/client.js';
import type { GroupVersionResource } from './rest/resource.js';

export { StatusError, isNotFoundError, isAlreadyExistsError, isConflictError, isInvalidError } from '../api/index.js';
export type { KubeObject, KubeList, Status } from '../api/index.js';

export {
  loadKubeconfig,
  KubeconfigError,
  parseKubeconfig,
  kubeconfigPaths,
  inClusterConfig,
  type RestConfig,
  type LoadKubeconfigOptions,
} from './rest/config.js';
export { addClientFlags, restConfigFromFlags, type ClientFlags } from './rest/flags.js';
export {
  numberFlag,
  nonNegativeNumberFlag,
  nonNegativeIntFlag,
  intFlag,
  booleanFlag,
  durationFlag,
  durationTextFlag,
  deprecatedAlias,
} from './rest/flag_parsers.js';
export {
  RESTClient,
  retryAfterSeconds,
  useHTTP2,
  newTransport,
  type RESTClientOptions,
  type RequestOptions,
  type RawResponse,
  type Verb,
  type Query,
} from './rest/client.js';
export {
  ResourceClient,
  type GroupVersionResource,
  type ListOptions,
  type GetOptions,
  type WriteOptions,
  type PatchOptions,
  type PatchType,
  type DeleteOptions,
  type WatchOptions,
} from './rest/resource.js';
export { RESOURCES } from './rest/resources.js';
export {
  Http1Transport,
  newAgent,
  tlsOptions,
  type Transport,
  type TransportRequest,
  type ResponseStream,
} from './rest/transport.js';
export { Http2Transport, type Http2TransportOptions, type Http2TransportStats } from './rest/http2.js';
export { StreamWatch, DEFAULT_WATCH_BUFFER, type Watch, type WatchEvent, type WatchEventType } from './rest/watch.js';
export {
  statusErrorFromResponse,
  errorCode,
  isResourceExpired,
  isTooManyRequests,
  isForbidden,
  isConnectionRefused,
  isConnectionLost,
} from './rest/errors.js';

export { TokenBucket, sleepAbortable, type RateLimiter } from './flowcontrol/token_bucket.js';
export { Backoff, type BackoffOptions } from './flowcontrol/backoff.js';
export { silentLogger, type ClientLogger } from './logger.js';

export {
  Indexer,
  DeletedFinalStateUnknown,
  unwrapDeleted,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
  byNamespace,
  NAMESPACE_INDEX,
  type Store,
  type KeyFunc,
  type IndexFunc,
  type Indexers,
} from './cache/store.js';
export { listWatchFor, type ListerWatcher, type ListWatchScope } from './cache/listwatch.js';
export {
  Reflector,
  stripManagedFields,
  type ReflectorOptions,
  type ReflectorStore,
  type Stopper,
} from './cache/reflector.js';
export {
  SharedInformer,
  type SharedInformerOptions,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
} from './cache/shared_informer.js';
export { Lister, NamespaceLister, type Selector } from './cache/listers.js';

export { WorkQueue, type WorkQueueOptions } from './workqueue/queue.js';
export { setWorkqueueMetricsProvider, type WorkqueueMetricsProvider, type QueueMetrics } from './workqueue/metrics.js';
export { prometheusWorkqueueMetrics } from './workqueue/prometheus_metrics.js';
export { DelayingQueue } from './workqueue/delaying_queue.js';
export { RateLimitingQueue, type RateLimitingQueueOptions } from './workqueue/rate_limiting_queue.js';
export {
  ItemExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type WorkqueueRateLimiter,
} from './workqueue/default_rate_limiters.js';
export { runWorkers, type Workers, type RunWorkersOptions } from './workqueue/run_workers.js';
export { SharedInformerFactory, type SharedInformerFactoryOptions } from './informers/factory.js';

/** A SharedInformer for one resource, optionally scoped by namespace and selectors (list and watch alike). */
export function newInformer<T extends KubeObject = KubeObject>(
  client: RESTClient,
  gvr: GroupVersionResource,
  scope: ListWatchScope = {},
  opts: SharedInformerOptions<T> = {},
): SharedInformer<T> {
  return new SharedInformer<T>(listWatchFor(client.resource<T>(gvr), scope), {
    reflector: { name: gvr.resource },
    ...opts,
  });
}

export {
  EventBroadcaster,
  EventCorrelator,
  COMBINED_PREFIX,
  referenceTo,
  type EventRecorder,
  type EventBroadcasterOptions,
  type EventBroadcasterStats,
  type CorrelatorOptions,
  type CorrelationResult,
  type CoreEvent,
  type EventType,
} from './record/index.js';

export {
  candidateIdentity,
  electionSettings,
  leaderElectionFlags,
  withLeaderElectionFlags,
  type LeaderElectionFlags,
  LeaderElector,
  type LeaderElectionConfig,
  setLeaderElectionMetricsProvider,
  prometheusLeaderElectionMetrics,
  type LeaderElectionMetricsProvider,
} from './leaderelection/index.js';
export {
  serveComponentEndpoints,
  splitHostPort,
  type ComponentEndpoints,
  type ComponentEndpointsOptions,
} from './serving/component_endpoints.js';
export {
  ALWAYS_ALLOW_PATHS,
  DelegatedAuth,
  type DelegatedDecision,
  type DelegatedUser,
} from './serving/delegated_auth.js';
export { selfSignedServingCert } from './serving/self_signed.js';
export {
  CertificateManager,
  CertificatePendingError,
  CertificateRequestError,
  generateKeyAndCSR,
  type Admit,
  requestCertificate,
  type ClientCertificate,
} from './certificate/index.js';
