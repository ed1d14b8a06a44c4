export { LogHistogram, HISTOGRAM_BUCKETS } from './histogram';
export { Rolling } from './rolling';
export { ModelAggregator, AggregatorSet, littlesLaw } from './aggregator';
