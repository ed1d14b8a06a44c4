// The paged KV cache's bookkeeping: blocks, block tables, admission policies, bytes per block.
export {
  KvBlockAllocator,
  blockMapOf,
  KV_ADMISSION_POLICIES,
  type KvAdmissionPolicy,
  type KvAdmitDecision,
  type KvBlockAllocatorOptions,
  type KvBlockMap,
  type KvBlockTables,
  type KvGrowResult,
  type KvPreempted,
  type KvSequenceView,
  type KvUsage,
} from './block-allocator';
export { kvBlocksFor, kvBudgetProblem, type KvBudgetCheck } from './kv-budget';
export { kvBlocksInBudget, kvBytesPerBlock, type KvModelShape } from './kv-bytes';
export { KvBlockStore, type KvKind } from './block-store';
export { KV_STEP_TENSORS, buildKvStep, storeKvStep, type KvStep, type KvStepRow, type KvStepTensor } from './step-batch';
export { kvShapeFromConfig } from './kv-signature';
export { planKvCache, type KvPlan } from './kv-plan';
