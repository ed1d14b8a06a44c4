export { Rng, mulberry32 } from './rng';
export * from './scenario';
export { validateScenario, ScenarioError } from './validate';
export { PRESETS, findPreset } from './presets';
export { scenarioToArrivals, RequestSampler, shapeKeyOf, DEFAULT_SEED, type Arrival, type ArrivalPlan, type ClosedLoopPhase } from './arrivals';
export { parseTrace, serializeTrace, arrivalLine, traceToScenario, TraceError, type Trace, type TraceHeader } from './trace';
