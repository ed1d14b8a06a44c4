// `inferscope serve`'s response-cache and rate-limiter flags (issue 54): parsed by core with Triton's words,
// refused as bad options, and what the server is built with; the load-time notice of a cache it lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OptionsError, parseServeArgs } from '../../apps/server/src/server-options.ts';
import { defaultRuntime } from '../../apps/server/src/models/default-runtime.ts';
import { MemoryLedger } from '../../apps/server/src/memory/ledger.ts';
import { EventBus } from '@inferscope/core';
import { RateLimiter } from '@inferscope/core/rate-limiter';

const serve = (...flags: string[]) => parseServeArgs(['--model-repository', 'model_repository', ...flags], {});
const refused = (flags: string[], message: string) =>
  assert.throws(() => serve(...flags), (e: unknown) => e instanceof OptionsError && e.message === message);

test('no cache and no rate limiting unless asked, as Triton', () => {
  const o = serve();
  assert.deepEqual([o.responseCache, o.rateLimit, o.rateLimitResources, o.startupWarnings], [null, 'off', [], []]);
});

test('--cache-config local,size=N, or the deprecated --response-cache-byte-size with its notice', () => {
  assert.deepEqual(serve('--cache-config', 'local,size=1048576').responseCache, { size: 1048576 });
  assert.deepEqual(serve('--cache-config=local,size=8192').responseCache, { size: 8192 });
  const old = serve('--response-cache-byte-size', '8192');
  assert.deepEqual(old.responseCache, { size: 8192 });
  assert.match(old.startupWarnings[0], /'--response-cache-byte-size' has been deprecated!/);
  refused(['--response-cache-byte-size=12345', '--cache-config=local,size=67890'],
    'Error: Incompatible flags --response-cache-byte-size and --cache-config both provided. Please provide one or the other.');
  refused(['--cache-config=local,size=8192', '--cache-config=redis,key=value'], 'found multiple cache configurations, but only a single cache is currently supported');
  refused(['--cache-config', 'size=1'], 'No cache specified. --cache-config option format is <cache name>,<setting>=<value>. Got size=1');
});

test('--rate-limit and --rate-limit-resource (repeatable; the smaller count of a repeat)', () => {
  const o = serve('--rate-limit', 'execution_count', '--rate-limit-resource', 'R1:10', '--rate-limit-resource', 'R2:5:0', '--rate-limit-resource', 'R1:4');
  assert.equal(o.rateLimit, 'execution_count');
  assert.deepEqual(o.rateLimitResources, [{ name: 'R1', count: 4, device: null }, { name: 'R2', count: 5, device: 0 }]);
  refused(['--rate-limit', 'fast'], 'invalid argument for --rate-limit');
  refused(['--rate-limit-resource', 'R1'], "--rate-limit-resource option format is '<resource_name>:<count>:<device>' or '<resource_name>:<count>'. Got R1");
});

test('a model that enables the cache on a server without one is told so at load (Triton is silent)', () => {
  const said: string[] = [];
  const make = (responseCache: boolean) => defaultRuntime({ memory: new MemoryLedger(), log: (m) => said.push(m), responseCache });
  const config = { name: 'm', max_batch_size: 0, response_cache: { enable: true } } as never;
  const executor = { execute: async () => [] };
  make(false).createScheduler({ model: 'm', version: '1', config, bus: new EventBus(), executor });
  assert.equal(said.length, 1);
  assert.match(said[0], /^m:1 enables response_cache but the server has no response cache \(start it with --cache-config local,size=<bytes>\)/);
  make(true).createScheduler({ model: 'm', version: '1', config, bus: new EventBus(), executor });
  assert.equal(said.length, 1, 'nothing to say when the server has a cache');
});

test('a sequence model that asks the rate limiter for resources is refused on a limiting server, not run unlimited', () => {
  const runtime = (mode: 'off' | 'execution_count') => defaultRuntime({ memory: new MemoryLedger(), rateLimiter: new RateLimiter(mode) });
  const config = { name: 's', max_batch_size: 0, sequence_batching: {}, instance_group: [{ count: 1, kind: 'KIND_CPU', rate_limiter: { resources: [{ name: 'R', count: 1 }] } }] } as never;
  const executor = { execute: async () => [] };
  assert.throws(() => runtime('execution_count').createScheduler({ model: 's', version: '1', config, bus: new EventBus(), executor }),
    /the rate limiter does not gate sequence-batched models yet/);
  assert.doesNotThrow(() => runtime('off').createScheduler({ model: 's', version: '1', config, bus: new EventBus(), executor }));
});
