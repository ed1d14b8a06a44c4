// The rate limiter: resources per device and global, instances ranked by executions x priority, Triton's flags.
export { RateLimiter, type LimitedInstance, type LimitedState, type RateLimiterSnapshot } from './rate-limiter';
export { GLOBAL, resourceCounts, scopedNeeds, type ResourceNeed, type Scope } from './resources';
export { parseRateLimitMode, parseRateLimitResource, mergeExplicitResources, type RateLimitMode, type ExplicitResource } from './flags';
