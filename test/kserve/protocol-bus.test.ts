// The server's bus stamps the front end's protocol on what one enqueue emits: the request's queued event,
// or its refusal before queueing (queue full, unavailable); never on another request's late refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerEvent } from '@inferscope/core';
import { ProtocolTaggingBus } from '../../apps/server/src/infer/protocol-bus';

const base = { t: 1, model: 'm', version: '1' };

test('enter(protocol) .. leave stamps queued events and refusals before queueing, nothing else', () => {
  const bus = new ProtocolTaggingBus();
  const seen: SchedulerEvent[] = [];
  bus.on((e) => seen.push(e));
  const previous = bus.enter('grpc');
  try {
    bus.emit({ ...base, type: 'request.queued', request_id: 'a', priority: 1, batch_size: 1, queue_depth: 1 });
    bus.emit({ ...base, type: 'request.rejected', request_id: 'b', reason: 'queue_full', message: 'Exceeds maximum queue size' });
    bus.emit({ ...base, type: 'request.rejected', request_id: 'c', reason: 'timeout', message: 'Request timeout expired', queued_us: 500 });
  } finally {
    bus.leave(previous);
  }
  bus.emit({ ...base, type: 'request.queued', request_id: 'd', priority: 1, batch_size: 1, queue_depth: 1 });
  const protocolOf = (id: string) => (seen.find((e) => 'request_id' in e && e.request_id === id) as { protocol?: string }).protocol;
  assert.equal(protocolOf('a'), 'grpc');
  assert.equal(protocolOf('b'), 'grpc');
  assert.equal(protocolOf('c'), undefined, "another request's timeout is not this call's");
  assert.equal(protocolOf('d'), undefined, 'after leave: in process');
});
