/** discovery.k8s.io/v1 EndpointSlice. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject } from '../types.js';
import type { ObjectReference } from './core.js';

/** discovery/v1 EndpointConditions; nil ready means unknown, read as ready. */
export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

/** discovery/v1 ForZone. */
export interface ForZone {
  name: string;
}

/** discovery/v1 EndpointHints. */
export interface EndpointHints {
  forZones?: ForZone[];
}

/** discovery/v1 Endpoint. */
export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  targetRef?: ObjectReference;
  deprecatedTopology?: Record<string, string>;
  nodeName?: string;
  zone?: string;
  hints?: EndpointHints;
}

/** discovery/v1 EndpointPort; every field is a pointer upstream. */
export interface EndpointPort {
  name?: string;
  protocol?: string;
  port?: number;
  appProtocol?: string;
}

/** discovery/v1 EndpointSlice. */
export interface EndpointSlice extends KubeObject {
  /** IPv4, IPv6 or FQDN. */
  addressType: string;
  endpoints: Endpoint[];
  ports?: EndpointPort[] | null;
}
