/** The IPVS proxy mode: virtual servers, kube-ipvs0 addresses, ipsets and iptables glue; plus a model of IPVS lookups. */
export { IpvsProxier, IpvsUnavailableError, checkIpvs } from './proxier.js';
export {
  renderIpvs,
  DEFAULT_IPVS_CONFIG,
  IpvsRenderCache,
  ipvsIptablesGlue,
  parseIpvsadmSave,
  IpvsState,
  IPSETS,
  type IpvsConfig,
  type IpvsRendering,
} from './rules.js';
export {
  portVirtualServers,
  vsKey,
  DUMMY_INTERFACE,
  type IpvsScheduler,
  type VirtualServer,
  type RealServer,
} from './virtual_servers.js';
export { IpvsModel, sourceHash, type ModelConnection } from './model.js';
