export { CHAOS_SCENARIOS, killEach, type ChaosScenario } from './scenario.js';
export { CHAOS_NAMESPACE, runChaos, type ChaosFault, type ChaosOptions } from './injector.js';
