export { Rng, mulberry32 } from './rng';
export * from './scenario';
export { validateScenario, ScenarioError } from './validate';
export { PRESETS, findPreset } from './presets';
export { planArrivals, scenarioToArrivals, RequestSampler, shapeKeyOf, DEFAULT_SEED, type Arrival, type ArrivalPlan, type LoadPlan, type OpenArrivals, type ClosedLoopPhase } from './arrivals';
export { DEFAULT_LOAD_LIMITS, checkPlanSize, planSize, LoadLimitError, type LoadLimits, type PlanSize } from './limits';
export { parseTrace, serializeTrace, arrivalLine, summaryLine, traceToScenario, TraceError, TraceReader, type Trace, type TraceHeader, type TraceSummary } from './trace';
export { spreadOf, verdictOf, HIGHER_IS_BETTER, type Spread, type ABMetric, type ABVerdict } from './ab-verdict';
export { paretoSet, rankResults, recommend, sweepConfigKey, type Budgets, type Recommendation } from './sweep-ranking';
