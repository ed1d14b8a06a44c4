export * from './cost-model';
export { SimExecutor } from './sim-executor';
export { SummaryCollector, percentile, type SimSummary } from './summary';
export { createSimulation, simulate, type Simulation, type SimulationOptions } from './simulation';
export * from './calibration';
export { CpuHost, isCpuKind } from './cpu-host';
export { BUNDLED_CALIBRATIONS, bundledCalibration, calibratedCost } from './calibration/index';
export { runNaiveBatcher, type NaiveBatch, type NaiveBatcherOptions, type RequestTiming } from './naive-batcher';
export { runCourseDemo, courseArrivals, COURSE_DEFAULTS, type CourseDemoOptions, type CourseDemoResult, type TritonBatch } from './course-demo';
