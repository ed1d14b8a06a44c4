import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveCacheFlags, parseCacheConfigArg } from './cache-config';
import { InferError } from '../errors';

const refused = (fn: () => unknown, message: string) =>
  assert.throws(fn, (e: unknown) => e instanceof InferError && e.code === 'INVALID_ARG' && e.message === message);

test('--cache-config local,size=N makes one local cache; none given, no cache', () => {
  assert.deepEqual(resolveCacheFlags({ cacheConfig: ['local,size=8192'] }), { cache: { size: 8192 }, warnings: [] });
  assert.deepEqual(resolveCacheFlags({ cacheConfig: [] }), { cache: null, warnings: [] });
  assert.deepEqual(parseCacheConfigArg('local,size=a=b'), { cache: 'local', setting: 'size', value: 'a=b' });
});

test("--cache-config values in Triton's format words", () => {
  refused(() => resolveCacheFlags({ cacheConfig: ['size=1'] }), 'No cache specified. --cache-config option format is <cache name>,<setting>=<value>. Got size=1');
  refused(() => resolveCacheFlags({ cacheConfig: [',size=1'] }), 'No cache specified. --cache-config option format is <cache name>,<setting>=<value>. Got ,size=1');
  for (const bad of ['local,size', 'local,=5', 'local,size=']) {
    refused(() => resolveCacheFlags({ cacheConfig: [bad] }), `--cache-config option format is '<cache name>,<setting>=<value>'. Got ${bad}`);
  }
});

test('the deprecated --response-cache-byte-size is the local cache with a notice; both flags together are refused', () => {
  const r = resolveCacheFlags({ cacheConfig: [], responseCacheByteSize: '8192' });
  assert.deepEqual(r.cache, { size: 8192 });
  assert.match(r.warnings[0], /'--response-cache-byte-size' has been deprecated!.*'--cache-config=local,size=8192'/);
  refused(() => resolveCacheFlags({ cacheConfig: ['local,size=67890'], responseCacheByteSize: '12345' }),
    'Error: Incompatible flags --response-cache-byte-size and --cache-config both provided. Please provide one or the other.');
  refused(() => resolveCacheFlags({ cacheConfig: [], responseCacheByteSize: 'lots' }), 'Invalid option value. Got lots');
  refused(() => resolveCacheFlags({ cacheConfig: [], responseCacheByteSize: '1'.repeat(30) }), `Provided option value is out of bound. Got ${'1'.repeat(30)}`);
});

test('one cache only, the local one, with a size it can read', () => {
  refused(() => resolveCacheFlags({ cacheConfig: ['local,size=8192', 'redis,key=value'] }),
    'found multiple cache configurations, but only a single cache is currently supported');
  assert.throws(() => resolveCacheFlags({ cacheConfig: ['redis,host=localhost'] }), /unable to find 'redis' cache/);
  refused(() => resolveCacheFlags({ cacheConfig: ['local,sise=1'] }), "Failed to initialize LocalCache: config didn't contain a valid 'size' field.");
  refused(() => resolveCacheFlags({ cacheConfig: ['local,size=1', 'local,sise=1'] }), "Failed to initialize LocalCache: unknown setting 'sise' (the local cache has only 'size')");
  refused(() => resolveCacheFlags({ cacheConfig: ['local,size=-4'] }), "Failed to initialize LocalCache: 'size' must be a whole number of bytes, got -4");
  refused(() => resolveCacheFlags({ cacheConfig: ['local,size=1', 'local,size=2'] }), "--cache-config sets 'size' of the 'local' cache twice (local,size=1 and local,size=2)");
});
