// Iteration-level (continuous, in-flight) batching of a generative model over the paged KV cache.
export type { GenOutcome, GenRequest, GenSink, IterEvent, IterativeKnobs, StepBatch, StepExecutor, StepRow, StepRowView, StepTokens } from './types';
export { GenSequence, genRequestProblem, knobProblems } from './sequence';
export { checkStepTokens, PlannerBase, type Delivered, type HandOver, type PlannedStep, type StepOutputs, type StepPlanner } from './planner';
export { ContinuousPlanner, type LiveKnobs } from './continuous';
export { StaticBatchPlanner } from './static-batch';
export { CANCELLED_BY_CLIENT, StepLoop, type StepLoopOptions } from './step-loop';
export { SimStepExecutor, simGenerateAlone, stepCostUs, stepShapeOf, type StepCost, type StepShape } from './sim-step';
export { stepModelCalls, type ModelCall } from './model-calls';
export { GenFigures, type GenFiguresOptions, type GenSummary, type GenWindow, type Spread } from './figures';
export { newPlanner, simulateGeneration, type GenArrival, type GenBatching, type GenClosedLoop, type GenSimResult, type GenSimulation } from './simulate';
export { ITERATIVE_PARAMETERS, ITERATIVE_REFUSALS, MAX_SEQ_LEN, iterativeSetupFromConfig, readMaxSeqLen, unbudgetedKvBytes, type IterativeSetup } from './config-knobs';
export { fitStepCost, stepSampleOf, type StepSample } from './step-cost-fit';
export { TokenTimeline, type TimelineCell } from './timeline';
export { planIterativeChange, type IterativeChange } from './live-change';
export { replanAtBoundary, type Replan } from './replan';
export { STEP_COST_CALIBRATIONS, stepCostCalibration, type StepCostCalibration, type StepCostFit } from './calibrations/index';
