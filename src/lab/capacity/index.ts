/** The capacity model: `kscale plan` predicts from it, `kscale lab calibrate` fits it from lab reports. */
export {
  DRIVERS,
  GROUP_DRIVERS,
  dominantCost,
  driversFor,
  predict,
  predictFigure,
  type CapacityCoefficients,
  type Driver,
  type Drivers,
  type FigureGroup,
  type FigureModel,
  type PlanInput,
  type Prediction,
} from './model.js';
export { checkCoefficients, fitCoefficients, groupOf, nnls, type CapacityMeasurement } from './fit.js';
export { capacityMeasurement, componentOf, type CapacityInput } from './measure.js';
export {
  SHIPPED_COEFFICIENTS,
  measurementsFrom,
  readCoefficients,
  reportFiles,
  writeCoefficients,
} from './coefficients_file.js';
export { planTable } from './plan_table.js';
