/** The iptables proxy mode: kube-proxy's chain layout applied with iptables-restore (legacy or nft backend). */
export { IptablesProxier } from './proxier.js';
export {
  renderIptables,
  chainsAfter,
  IptablesRenderCache,
  DEFAULT_IPTABLES_CONFIG,
  type IptablesConfig,
  type IptablesRendering,
} from './rules.js';
export {
  detectBackend,
  toolsFor,
  HINT_CHAIN,
  type IptablesBackend,
  type IptablesTools,
  type BackendDetection,
} from './backend.js';
export {
  svcChain,
  svlChain,
  extChain,
  sepChain,
  JUMP_RULES,
  KUBE_SERVICES,
  KUBE_NODEPORTS,
  KUBE_MARK_MASQ,
  KUBE_POSTROUTING,
} from './chains.js';
