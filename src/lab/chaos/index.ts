export { CHAOS_SCENARIOS, killEach, type ChaosScenario } from './scenario.js';
export { runChaos, type ChaosFault, type ChaosOptions } from './injector.js';
