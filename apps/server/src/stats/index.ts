export { StatsCollector, type ModelStat, type BatchStat, type Duration, type StatsCollectorOptions } from './collector';
