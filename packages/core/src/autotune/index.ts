export { AUTOTUNE_PARAMETER, autotuneTargetOfMs, autotuneTargetProblem, autotuneTargetUs, autotuneWarnings } from '../config/autotune-parameter';
export { WindowCollector, type AutotuneWindow } from './window';
export { predict, type BatchCost, type Prediction, type QueueModelInput } from './queue-model';
export { instanceChange, type InstanceChange } from './instances';
export { autotuneStart, autotuneStep, initialAutotuneState, HEADROOM, type AutotuneState, type AutotuneDecision, type AutotuneReason, type AutotuneStep, type BatchingView } from './policy';
export { ObservedCost } from './cost';
export { AutotuneDriver, AUTOTUNE_WINDOW_US, batchingView, tunedGroupCount, type DecisionRecord } from './driver';
