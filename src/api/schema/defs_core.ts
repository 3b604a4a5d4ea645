/** core/v1 definitions other than the pod: Service, Node, Namespace, ConfigMap, Secret, ServiceAccount, Event, Endpoints, Binding. */
import type { StructDesc } from './dsl.js';

const top = (spec?: string, status?: string): StructDesc => ({
  apiVersion: 'string', kind: 'string', metadata: 'meta.ObjectMeta', ...(spec ? { spec } : {}), ...(status ? { status } : {}),
});

/** core/v1 definitions by short name. */
export const CORE_DEFS: Record<string, StructDesc> = {
  'core.Service': top('core.ServiceSpec', 'core.ServiceStatus'),
  'core.ServiceSpec': {
    ports: '[]core.ServicePort@port', selector: 'map[string]', clusterIP: 'string', clusterIPs: '[]string', type: 'string', externalIPs: '[]string',
    sessionAffinity: 'string', loadBalancerIP: 'string', loadBalancerSourceRanges: '[]string', externalName: 'string',
    externalTrafficPolicy: 'string', healthCheckNodePort: 'int', publishNotReadyAddresses: 'boolean',
    sessionAffinityConfig: 'core.SessionAffinityConfig', ipFamilies: '[]string', ipFamilyPolicy: 'string',
    allocateLoadBalancerNodePorts: 'boolean', loadBalancerClass: 'string', internalTrafficPolicy: 'string', trafficDistribution: 'string',
  },
  'core.ServicePort': { name: 'string', protocol: 'string', appProtocol: 'string', port: 'int', targetPort: 'IntOrString', nodePort: 'int' },
  'core.SessionAffinityConfig': { clientIP: 'core.ClientIPConfig' },
  'core.ClientIPConfig': { timeoutSeconds: 'int' },
  'core.ServiceStatus': { loadBalancer: 'core.LoadBalancerStatus', conditions: '[]meta.Condition@type' },
  'core.LoadBalancerStatus': { ingress: '[]core.LoadBalancerIngress' },
  'core.LoadBalancerIngress': { ip: 'string', hostname: 'string', ipMode: 'string', ports: '[]core.PortStatus' },
  'core.PortStatus': { port: 'int', protocol: 'string', error: 'string' },

  'core.Node': top('core.NodeSpec', 'core.NodeStatus'),
  'core.NodeSpec': {
    podCIDR: 'string', podCIDRs: '[]string@', providerID: 'string', unschedulable: 'boolean', taints: '[]core.Taint', configSource: 'object',
    externalID: 'string',
  },
  'core.Taint': { key: 'string', value: 'string', effect: 'string', timeAdded: 'Time' },
  'core.NodeStatus': {
    capacity: 'map[Quantity]', allocatable: 'map[Quantity]', phase: 'string', conditions: '[]core.NodeCondition@type',
    addresses: '[]core.NodeAddress@type', daemonEndpoints: 'core.NodeDaemonEndpoints', nodeInfo: 'core.NodeSystemInfo',
    images: '[]core.ContainerImage', volumesInUse: '[]string', volumesAttached: '[]core.AttachedVolume', config: 'object',
    runtimeHandlers: '[]object', features: 'object', declaredFeatures: '[]string',
  },
  'core.NodeCondition': {
    type: 'string', status: 'string', lastHeartbeatTime: 'Time', lastTransitionTime: 'Time', reason: 'string', message: 'string',
  },
  'core.NodeAddress': { type: 'string', address: 'string' },
  'core.NodeDaemonEndpoints': { kubeletEndpoint: 'core.DaemonEndpoint' },
  'core.DaemonEndpoint': { Port: 'int' },
  'core.NodeSystemInfo': {
    machineID: 'string', systemUUID: 'string', bootID: 'string', kernelVersion: 'string', osImage: 'string', containerRuntimeVersion: 'string',
    kubeletVersion: 'string', kubeProxyVersion: 'string', operatingSystem: 'string', architecture: 'string', swap: 'object',
  },
  'core.ContainerImage': { names: '[]string', sizeBytes: 'int64' },
  'core.AttachedVolume': { name: 'string', devicePath: 'string' },

  'core.Namespace': top('core.NamespaceSpec', 'core.NamespaceStatus'),
  'core.NamespaceSpec': { finalizers: '[]string' },
  'core.NamespaceStatus': { phase: 'string', conditions: '[]core.NamespaceCondition@type' },
  'core.NamespaceCondition': { type: 'string', status: 'string', lastTransitionTime: 'Time', reason: 'string', message: 'string' },

  'core.ConfigMap': { ...top(), immutable: 'boolean', data: 'map[string]', binaryData: 'map[bytes]' },
  'core.Secret': { ...top(), immutable: 'boolean', data: 'map[bytes]', stringData: 'map[string]', type: 'string' },
  'core.ServiceAccount': {
    ...top(), secrets: '[]core.ObjectReference@name', imagePullSecrets: '[]core.LocalObjectReference', automountServiceAccountToken: 'boolean',
  },
  'core.ObjectReference': {
    kind: 'string', namespace: 'string', name: 'string', uid: 'string', apiVersion: 'string', resourceVersion: 'string', fieldPath: 'string',
  },
  'core.Event': {
    ...top(), involvedObject: 'core.ObjectReference', reason: 'string', message: 'string', source: 'core.EventSource', firstTimestamp: 'Time',
    lastTimestamp: 'Time', count: 'int', type: 'string', eventTime: 'MicroTime', series: 'core.EventSeries', action: 'string',
    related: 'core.ObjectReference', reportingComponent: 'string', reportingInstance: 'string',
  },
  'core.EventSource': { component: 'string', host: 'string' },
  'core.EventSeries': { count: 'int', lastObservedTime: 'MicroTime' },
  'core.Endpoints': { ...top(), subsets: '[]core.EndpointSubset' },
  'core.EndpointSubset': { addresses: '[]core.EndpointAddress', notReadyAddresses: '[]core.EndpointAddress', ports: '[]core.EndpointPort' },
  'core.EndpointAddress': { ip: 'string', hostname: 'string', nodeName: 'string', targetRef: 'core.ObjectReference' },
  'core.EndpointPort': { name: 'string', port: 'int', protocol: 'string', appProtocol: 'string' },
  'core.Binding': { ...top(), target: 'core.ObjectReference' },
};
