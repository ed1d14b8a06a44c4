export { LogHistogram, HISTOGRAM_BUCKETS } from './histogram';
export { Rolling } from './rolling';
export { percentile, percentileOf, percentilesOf, type Percentiles } from '../util/percentile';
export { standardDeviation } from './deviation';
export { ModelAggregator, AggregatorSet, littlesLaw } from './aggregator';
export { EventFold, type FoldFilter } from './event-fold';
export { requestOutcome, failureOf, leavesPending, noFailures, isCacheHit, type RequestOutcome } from './request-outcome';
