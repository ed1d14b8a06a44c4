// onnxruntime's gather transfers its feeds to the worker thread (detaching them here). Request tensors
// are views on the request body (infer/binary-data.ts), so the feeds must never share a buffer with a
// request: batched (concatenated) and unbatched (one request, copied) alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InferPayload, SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import { gatherFeeds } from '../../apps/server/src/backends/onnxruntime/batch-io';

const config = (maxBatch: number): ModelConfig => ({
  name: 'm', max_batch_size: maxBatch,
  input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [2] }],
  output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [2] }],
});

function requestsOnOneBody(n: number, batching: boolean): SchedulerRequest<InferPayload>[] {
  const body = new ArrayBuffer(64);
  return Array.from({ length: n }, (_, i) => ({
    id: `r${i}`, batchSize: 1, priority: 0, arrival: 0,
    payload: { inputs: [{ name: 'IN', datatype: 'FP32', shape: batching ? [1, 2] : [2], data: new Float32Array(body, 8 * i, 2).fill(i + 1) }] },
  }) as unknown as SchedulerRequest<InferPayload>);
}

for (const [label, maxBatch, n] of [['batched', 4, 3], ['unbatched', 0, 1]] as const) {
  test(`gatherFeeds (${label}): feeds own their buffers, the requests' views stay intact`, () => {
    const batch = requestsOnOneBody(n, maxBatch > 0);
    const { feeds } = gatherFeeds(config(maxBatch), batch);
    const feed = feeds[0].data as Float32Array;
    const requestBuffer = (batch[0].payload.inputs[0].data as Float32Array).buffer;
    assert.notEqual(feed.buffer, requestBuffer);
    assert.deepEqual([...feed], batch.flatMap((r) => [...(r.payload.inputs[0].data as Float32Array)]));
    // what the worker hand-off does to a feed: the request's data must survive it
    structuredClone(feed.buffer, { transfer: [feed.buffer as ArrayBuffer] });
    assert.equal((batch[0].payload.inputs[0].data as Float32Array)[0], 1);
  });
}
