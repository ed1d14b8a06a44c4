export { AUTOTUNE_PARAMETER, autotuneTargetOfMs, autotuneTargetProblem, autotuneTargetUs, autotuneWarnings } from '../config/autotune-parameter';
export { WindowCollector, type AutotuneWindow } from './window';
export { predict, withOffset, RHO_REACH, type BatchCost, type Prediction, type QueueModelInput } from './queue-model';
export { instanceChange, type InstanceChange } from './instances';
export { autotuneStart, autotuneStep, initialAutotuneState, HEADROOM, DWELL_US, type AutotuneState, type AutotuneDecision, type AutotuneReason, type AutotuneStep, type BatchingView } from './policy';
export { ObservedCost } from './cost';
export { AutotuneDriver, AUTOTUNE_WINDOW_US, batchingView, tunedGroupCount, type DecisionRecord } from './driver';
export { autotuneRestore, type AutotuneRestore } from './restore';
export { autotuneReport, describeAutotune, limitAdvice, restoredText, type AutotuneReport, type AutotuneStatus, type AutotuneLimit, type AutotuneOrigin, type AutotuneProposal } from './status';
