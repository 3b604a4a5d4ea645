/**
 * The shapes of the core/v1 and discovery.k8s.io/v1 objects the endpoint
 * controllers read and write. Objects stay plain JSON; only the fields used
 * are named.
 */
import type { KubeObject } from '../../client/index.js';
import type { Condition } from '../nodeutil/index.js';

/** v1.ServicePort. */
export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port: number;
  targetPort?: number | string;
}

/** v1.Service. */
export interface Service extends KubeObject {
  spec?: {
    selector?: Record<string, string> | null;
    type?: string;
    clusterIP?: string;
    ports?: ServicePort[];
    publishNotReadyAddresses?: boolean;
    trafficDistribution?: string;
    [k: string]: unknown;
  };
}

/** v1.ContainerPort. */
export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

/** v1.Pod, with the fields that make an endpoint. */
export interface EndpointPod extends KubeObject {
  spec?: {
    nodeName?: string;
    hostname?: string;
    subdomain?: string;
    restartPolicy?: string;
    containers?: { name: string; ports?: ContainerPort[] }[];
    [k: string]: unknown;
  };
  status?: {
    phase?: string;
    podIP?: string;
    podIPs?: { ip: string }[];
    conditions?: Condition[];
    [k: string]: unknown;
  };
}

/** v1.ObjectReference as endpoints carry it. */
export interface TargetRef {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** discovery/v1 EndpointHints. */
export interface EndpointHints {
  forZones?: { name: string }[];
}

/** discovery/v1 Endpoint. */
export interface Endpoint {
  addresses: string[];
  conditions: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  targetRef?: TargetRef;
  nodeName?: string;
  zone?: string;
  hints?: EndpointHints;
}

/** discovery/v1 EndpointPort. */
export interface EndpointPort {
  name: string;
  protocol: string;
  port: number;
  appProtocol?: string;
}

/** discovery/v1 EndpointSlice. */
export interface EndpointSlice extends KubeObject {
  addressType: string;
  endpoints: Endpoint[];
  ports?: EndpointPort[] | null;
}

/** v1.EndpointAddress. */
export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: TargetRef;
}

/** v1.EndpointSubset. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: { name?: string; port: number; protocol: string; appProtocol?: string }[];
}

/** v1.Endpoints. */
export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

/** Labels and annotations both controllers write. */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
/** The managed-by value of slices this controller owns (upstream's controller name). */
export const ENDPOINTSLICE_CONTROLLER_MANAGED_BY = 'endpointslice-controller.k8s.io';
export const LABEL_HEADLESS = 'service.kubernetes.io/headless';
export const ANNOTATION_LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
export const ANNOTATION_OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
