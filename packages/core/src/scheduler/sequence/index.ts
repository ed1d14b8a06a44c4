export * from './types';
export * from './correlation';
export { controlTable, controlValues, type ControlTable } from './controls';
export { stateSpecs, StateStore, StateConfigError, type StateSpec } from './state';
export { sequencePolicy, type SequencePolicy } from './policy';
export { decideDirect, type DirectDecision, type DirectOptions, type SlotFront } from './direct';
export { SequenceScheduler, type SequenceSchedulerOptions } from './sequence-scheduler';
export * from './snapshot';
export { stepInputs, stateTensor, splitStateOutputs, zeroedInputs } from './tensors';
