/**
 * The scale lab, kscale's ClusterLoader2: cluster bring-up under a
 * supervisor, load scenarios, SLO measurement, experiments and reports.
 * Nothing depends on the lab; it depends on everything through processes
 * and the client.
 */
export { runLab, resolveMode, type LabOutcome, type LabHooks } from './run.js';
export { defaultConfig, RAISED_LIMITS, type LabConfig, type ClientLimits } from './config.js';
export { loadScenario, listScenarios, parseScenario, planScenario, SCENARIO_DIR, type Scenario } from './scenario.js';
export { Supervisor, type ComponentSpec, type RunningComponent } from './supervisor.js';
export { Progress } from './progress.js';
export { summaryText, type LabReport } from './report.js';
export { renderHtml } from './html.js';
export { EXPERIMENTS, runExperiment, type Experiment } from './experiments.js';
export { compareReports, figureRows, verdict, type FigureRow, type Verdict } from './compare.js';
export { readReport, REPORT_SCHEMA } from './report_schema.js';
export { failedSlos, junitXml } from './junit.js';
export {
  driversFor,
  fitCoefficients,
  planTable,
  predict,
  readCoefficients,
  type CapacityCoefficients,
} from './capacity/index.js';
