/** The nftables proxy mode: one table with verdict maps and numgen balancing, applied as nft transactions. */
export { NftablesProxier } from './proxier.js';
export { renderNftables, commitNftables, NftState, type NftRendering } from './rules.js';
export { DEFAULT_NFT_CONFIG, type NftConfig } from './base.js';
export { TABLE, FAMILY, serviceChain, endpointChain, externalChain, localChain, affinitySet } from './names.js';
