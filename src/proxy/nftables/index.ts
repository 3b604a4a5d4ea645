/** The nftables proxy mode: one table with verdict maps and numgen balancing, applied as nft transactions. */
export { NftablesProxier, STALE_PURGE_AFTER_MS, STALE_PURGE_COUNT } from './proxier.js';
export {
  renderNftables,
  commitNftables,
  releaseNftables,
  staleCount,
  NftState,
  type NftRendering,
  type NftRenderOptions,
  type Stale,
} from './rules.js';
export { portObjects, type PortObjects, type Element, type SlotBlock } from './port_objects.js';
export {
  DEFAULT_NFT_CONFIG,
  ENDPOINT_DNAT,
  ENDPOINT_SHARDS,
  SLOT_PROTOCOLS,
  endpointMap,
  type NftConfig,
} from './base.js';
export { TABLE, FAMILY, serviceChain, endpointChain, externalChain, localChain, affinitySet } from './names.js';
