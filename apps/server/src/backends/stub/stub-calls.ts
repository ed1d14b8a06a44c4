/**
 * Serves what one stub sends beside its batch answers (protocol-calls.ts): decoupled responses go to the
 * batch's StubRuns, BLS calls to runBlsCall, custom-metric calls to the server's CustomMetrics. Every
 * call that expects an answer gets one, also when the server cannot serve it.
 */
import type { FromStubCall } from './protocol-calls';
import type { StubProcess } from './stub-process';
import type { StubRuns } from './decoupled-runs';
import type { ServerCalls } from './server-calls';
import { runBlsCall } from './bls-calls';

export interface StubCallContext {
  model: string;
  version: string;
  stub: StubProcess;
  runs: StubRuns;
  calls: ServerCalls | undefined;
  /** this stub's BLS calls still unanswered, by call id: what cancels each */
  blsCalls: Map<number, () => void>;
}

/** Owner of a model version's custom metrics (released when it unloads). */
export const metricOwner = (model: string, version: string): string => `${model}\0${version}`;

export function serveStubCall(ctx: StubCallContext, m: FromStubCall, body: Uint8Array): void {
  const { stub, calls } = ctx;
  if (m.type === 'response') return ctx.runs.response(m, body);
  if (m.type === 'metricOp') return calls?.metrics.update(m.metric, m.op, m.value);
  if (m.type === 'blsCancel') return ctx.blsCalls.get(m.call)?.();
  if (!calls) {
    const error = 'calls into the server are not available to this instance';
    if (m.type === 'bls') stub.reply({ type: 'blsResponse', call: m.call, final: true, error, code: 'UNAVAILABLE' });
    else stub.reply({ type: 'callReply', call: m.call, error });
    return;
  }
  if (m.type === 'bls') {
    const request = ctx.runs.request(m.run, m.index);
    const parent = request ? { model: ctx.model, version: ctx.version, request, children: ctx.runs.childrenOf(m.run, m.index) } : undefined;
    let open = true;
    const cancel = runBlsCall(calls, m, body, parent, ctx.runs.chainOf(m.run, m.index, m.detached === true), (reply, tensors) => {
      if (reply.final) {
        open = false;
        ctx.blsCalls.delete(m.call);
      }
      stub.reply(reply, tensors);
    });
    if (open) ctx.blsCalls.set(m.call, cancel);
    return;
  }
  const owner = metricOwner(ctx.model, ctx.version);
  try {
    switch (m.type) {
      case 'metricFamily':
        return stub.reply({ type: 'callReply', call: m.call, id: calls.metrics.family(owner, m.name, m.description, m.kind) });
      case 'metric':
        return stub.reply({ type: 'callReply', call: m.call, id: calls.metrics.metric(owner, m.family, m.labels ?? {}, m.buckets) });
      case 'metricValue':
        return stub.reply({ type: 'callReply', call: m.call, value: calls.metrics.value(m.metric) });
    }
  } catch (err) {
    stub.reply({ type: 'callReply', call: m.call, error: (err as Error).message });
  }
}
