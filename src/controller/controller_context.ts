/**
 * What a controller is built from, like kube-controller-manager's
 * ControllerContext: the client, the shared informers, the clock and the
 * component configuration (one section per controller).
 */
import type { ClientLogger, EventBroadcaster, RESTClient } from '../client/index.js';
import type { Clock } from '../clock/index.js';
import type { ControllerClientBuilder } from './client_builder.js';
import type { SharedInformerFactory } from '../client/index.js';
import { DEFAULT_NODE_LIFECYCLE_OPTIONS, type NodeLifecycleControllerOptions } from './nodelifecycle/config.js';
import { DEFAULT_GARBAGE_COLLECTOR_OPTIONS, type GarbageCollectorOptions } from './garbagecollector/config.js';
import { DEFAULT_DEPLOYMENT_OPTIONS, type DeploymentControllerOptions } from './deployment/config.js';
import { DEFAULT_PODGC_OPTIONS, type PodGCControllerOptions } from './podgc/config.js';
import { DEFAULT_REPLICASET_OPTIONS, type ReplicaSetControllerOptions } from './replicaset/config.js';
import { DEFAULT_ENDPOINTSLICE_OPTIONS, type EndpointSliceControllerOptions } from './endpointslice/config.js';
import { DEFAULT_ENDPOINTS_OPTIONS, type EndpointsControllerOptions } from './endpoints/config.js';
import { DEFAULT_JOB_OPTIONS, type JobControllerOptions } from './job/config.js';
import { DEFAULT_DAEMONSET_OPTIONS, type DaemonSetControllerOptions } from './daemon/config.js';
import { DEFAULT_STATEFULSET_OPTIONS, type StatefulSetControllerOptions } from './statefulset/config.js';
import { DEFAULT_CSR_SIGNING_OPTIONS, type CSRSigningControllerOptions } from './certificates/config.js';

/** KubeControllerManagerConfiguration: per-controller settings. */
export interface ControllerManagerConfiguration {
  nodeLifecycle: NodeLifecycleControllerOptions;
  replicaSet: ReplicaSetControllerOptions;
  deployment: DeploymentControllerOptions;
  garbageCollector: GarbageCollectorOptions;
  podGC: PodGCControllerOptions;
  endpointSlice: EndpointSliceControllerOptions;
  endpoints: EndpointsControllerOptions;
  job: JobControllerOptions;
  daemonSet: DaemonSetControllerOptions;
  statefulSet: StatefulSetControllerOptions;
  csrSigning: CSRSigningControllerOptions;
  /** --root-ca-file's PEM (default: the kubeconfig's CA), published as kube-root-ca.crt; none publishes nothing. */
  rootCA?: string;
}

/** Upstream's defaults for every controller. */
export function defaultControllerManagerConfiguration(): ControllerManagerConfiguration {
  return {
    nodeLifecycle: { ...DEFAULT_NODE_LIFECYCLE_OPTIONS },
    replicaSet: { ...DEFAULT_REPLICASET_OPTIONS },
    deployment: { ...DEFAULT_DEPLOYMENT_OPTIONS },
    garbageCollector: { ...DEFAULT_GARBAGE_COLLECTOR_OPTIONS },
    podGC: { ...DEFAULT_PODGC_OPTIONS },
    endpointSlice: { ...DEFAULT_ENDPOINTSLICE_OPTIONS },
    endpoints: { ...DEFAULT_ENDPOINTS_OPTIONS },
    job: { ...DEFAULT_JOB_OPTIONS },
    daemonSet: { ...DEFAULT_DAEMONSET_OPTIONS },
    statefulSet: { ...DEFAULT_STATEFULSET_OPTIONS },
    csrSigning: { ...DEFAULT_CSR_SIGNING_OPTIONS },
  };
}

/** Everything a controller's init function gets. */
export interface ControllerContext {
  client: RESTClient;
  informers: SharedInformerFactory;
  /** The controllers' clock: every period, grace and rate is measured on it. */
  clock: Clock;
  logger: ClientLogger;
  config: ControllerManagerConfiguration;
  /** Where controllers' Events go: each controller takes a recorder named after itself (its Event source component). */
  events: EventBroadcaster;
  /**
   * When set, startControllers gives each controller its own client from it (own QPS/burst limiter, as upstream's
   * ClientBuilder does) and its own EventBroadcaster writing through that client (as upstream's controllers sink
   * their Events through their own clientset); `client` and `events` then serve only the shared informers.
   */
  clientBuilder?: ControllerClientBuilder;
}

/** A running controller: loops start with run() after the informers have synced. */
export interface Controller {
  readonly name: string;
  /** Starts the controller's loops and workers. */
  run(): void;
  /** Stops loops and workers and waits for in-flight work. */
  stop(): Promise<void>;
  /** True when no pass, worker or pending immediate action is in flight (tests wait on this). */
  isIdle(): boolean;
}
