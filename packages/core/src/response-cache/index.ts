// The response cache: one LRU buffer shared by every model, its key, its hash, and the flags that size it.
export { ResponseCache, ENTRY_OVERHEAD_BYTES, countsAsModelMiss, type CacheAnswer, type CacheLookup, type InsertOutcome, type ResponseCacheOptions, type ResponseCacheStats } from './response-cache';
export { encodeKey, sameBytes, type CacheKeyParts, type CacheKeyInput } from './key';
export { xxh32, keyHash } from './hash';
export { resolveCacheFlags, parseCacheConfigArg, parseByteCountOption, type CacheFlags, type CacheChoice, type CacheSettings } from './cache-config';
export { InferenceCache, payloadKey, resultBytes, type CachedRequest } from './cached-infer';
