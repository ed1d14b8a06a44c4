/**
 * The handlers of `inference.GRPCInferenceService`. Every RPC answers from the same objects as the HTTP
 * routes (ModelManager, StatsCollector, the shared inference pipeline), so a gRPC and an HTTP client see
 * the same models, outputs, errors and statistics; errors leave with Triton's gRPC status codes.
 *
 * Cancellation: a call the client cancels (or whose deadline passes) aborts its request: not queued if
 * it was not yet, taken out of the queue if it waits there (the scheduler answers it as cancelled); a
 * request already in a running batch completes and its answer is dropped (grpc-js ignores a callback or
 * write on a cancelled call).
 */
import type { sendUnaryData, ServerDuplexStream, ServerUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { modelConfigToJson } from '@inferscope/core/config';
import type { ModelManager } from '../models/model-manager';
import { ClientGone, type CancelSignal } from '../infer/cancellable';
import type { StatsCollector } from '../stats/collector';
import { runInference, checkVersion, type InferCall, type InferServiceDeps } from '../infer/run-inference';
import type { ParsedRequest } from '../infer/parsed-request';
import { resolveModel } from '../infer/resolve-model';
import { errors, InferError } from '@inferscope/core';
import { describeError } from '../infer/errors';
import { loadModel, unloadModel } from '../kserve/repository-control';
import { modelMetadata } from '../kserve/model-metadata';
import { grpcInferResponse, parseGrpcRequest, type GrpcInferRequest } from './codec';
import { streamInference } from '../infer/stream-inference';
import { asksForEmptyFinal, streamResponse } from './stream-responses';
import { grpcError } from './status';
import type { PrivateFolders } from '../repository/private-folders';
import type { ControlGuard } from '../control/guard';
import type { Held, InflightBytes } from '../infer/inflight-bytes';
import { admitGrpcMessage } from './admission';
import { StreamFlow } from './stream-flow';

export interface GrpcServiceDeps extends InferServiceDeps {
  manager: ModelManager;
  /** the server's private folders for loads with `file:` contents (shared with HTTP) */
  loadFolders: PrivateFolders;
  stats: Pick<StatsCollector, 'modelStats'>;
  serverInfo(): { name: string; version: string; extensions: string[] };
  /** who may call the methods that change the server (the same guard as HTTP's and the live channel's) */
  control: ControlGuard;
  /** the server's readiness, the same answer as GET /v2/health/ready (server-readiness.ts) */
  ready(): boolean;
  /** --max-inflight-bytes: the same budget as HTTP's inference bodies (grpc/admission.ts) */
  inflight: InflightBytes;
}

/**
 * One ModelInfer message as runInference sees it: a class with a `decode` method, not a literal with an
 * arrow (per request, tsx's keepNames turns a named closure into a defineProperty; see http/kserve-routes.ts).
 */
class GrpcInferCall implements InferCall {
  readonly protocol = 'grpc' as const;
  readonly model: string;
  readonly version: string | undefined;

  constructor(
    private readonly msg: GrpcInferRequest,
    readonly signal: CancelSignal,
    readonly charge: Held,
  ) {
    this.model = msg.model_name;
    this.version = msg.model_version;
  }

  decode(): ParsedRequest {
    return parseGrpcRequest(this.msg);
  }
}

type Req = {
  name?: string;
  version?: string;
  ready?: boolean;
  model_name?: string;
  repository_name?: string;
  parameters?: Record<string, Record<string, unknown>>;
};

/** Triton's load/unload refuse a repository name: models are found by name in every repository. */
function noRepositoryName(req: Req): void {
  if (req.repository_name) throw errors.REPOSITORY_NAME_UNSUPPORTED();
}

/** A unary handler from an async function: result or Triton-mapped error, exactly one callback. */
function unary<T>(fn: (req: Req, call: ServerUnaryCall<Req, T>) => Promise<T> | T) {
  return (call: ServerUnaryCall<Req, T>, callback: sendUnaryData<T>) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then((res) => callback(null, res), (err) => callback(grpcError(err)));
  };
}

/**
 * A signal that fires when grpc-js reports the call cancelled (client cancel, deadline, connection lost),
 * and `settled()` to call once the answer is sent. grpc-js reports a call "cancelled" when its stream
 * closes, also after a normal answer; a settled call stops listening, so that late report costs nothing
 * (with an AbortController it built a DOMException per call: GC 11% -> 4% of the main thread under load).
 */
type CancellableCall = { cancelled: boolean; on(event: 'cancelled', fn: () => void): unknown; removeListener(event: 'cancelled', fn: () => void): unknown };

/**
 * A call's "the client cancelled" as the scheduler's CancelSignal, and `settled()` to stop listening once
 * the call is answered. A class, made per call: named arrows would each cost a defineProperty under tsx's
 * keepNames (see http/kserve-routes.ts); the listener is a bound method.
 */
class CallCancel {
  readonly signal = new ClientGone();
  private readonly onCancel: () => void;

  constructor(private readonly call: CancellableCall) {
    this.onCancel = this.signal.abort.bind(this.signal);
    if (call.cancelled) this.signal.abort();
    else call.on('cancelled', this.onCancel); // `on`, not `once`: once wraps the listener in two more objects per call
  }

  settled(): void {
    this.call.removeListener('cancelled', this.onCancel);
  }
}

function repositoryParams(params: Req['parameters']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(params ?? {})) {
    const which = p.parameter_choice as string | undefined;
    // int64 arrives as a decimal string (loader option longs: String); a number names its type INT
    out[k] = which === 'int64_param' ? Number(p[which]) : which ? p[which] : undefined;
  }
  return out;
}

export function grpcHandlers(deps: GrpcServiceDeps): UntypedServiceImplementation {
  const { manager } = deps;

  return {
    ServerLive: unary(() => ({ live: true })),
    ServerReady: unary(() => ({ ready: deps.ready() })),
    ModelReady: unary((req) => {
      resolveModel(manager, req.name ?? '', checkVersion(req.name ?? '', req.version));
      return { ready: true };
    }),
    ServerMetadata: unary(() => deps.serverInfo()),
    ModelMetadata: unary((req) => {
      const version = checkVersion(req.name ?? '', req.version);
      const served = manager.require(req.name ?? '', version);
      return modelMetadata(served.name, version === undefined ? served.readyVersions : [served.version], served.config);
    }),
    ModelConfig: unary((req) => ({ config: modelConfigToJson(manager.require(req.name ?? '', checkVersion(req.name ?? '', req.version)).config) })),
    ModelStatistics: unary((req) => ({ model_stats: deps.stats.modelStats(req.name || undefined, req.version || undefined) })),
    RepositoryIndex: unary(async (req) => {
      // repository_name is ignored here, as Triton answers the index for any repository name
      await manager.refreshIndex();
      return { models: manager.index(req.ready === true) };
    }),
    RepositoryModelLoad: unary(async (req) => {
      noRepositoryName(req);
      await loadModel(manager, deps.loadFolders, req.model_name ?? '', repositoryParams(req.parameters));
      return {};
    }),
    RepositoryModelUnload: unary(async (req) => {
      noRepositoryName(req);
      await unloadModel(manager, deps.loadFolders, req.model_name ?? '', repositoryParams(req.parameters));
      return {};
    }),
    // Each message holds its share of --max-inflight-bytes until it is answered; past the limit it is
    // refused at once (UNAVAILABLE), before it is decoded into tensors or queued.
    ModelInfer: (call: ServerUnaryCall<GrpcInferRequest, unknown>, callback: sendUnaryData<unknown>) => {
      const held = admitGrpcMessage(deps.inflight, call.request, call);
      if (held instanceof InferError) {
        callback(grpcError(held));
        return;
      }
      const cancel = new CallCancel(call);
      // one level of promise from the pipeline's outcome to the answer
      runInference(deps, new GrpcInferCall(call.request, cancel.signal, held)).then(
        ({ served, request, outputs, shmWritten }) => {
          held.release();
          cancel.settled();
          let answer: ReturnType<typeof grpcInferResponse>;
          try {
            answer = grpcInferResponse(served.name, served.version, request.id, outputs, shmWritten, request.shmOutputs);
          } catch (err) {
            callback(grpcError(err)); // still exactly one answer
            return;
          }
          callback(null, answer);
        },
        (err: unknown) => {
          held.release();
          cancel.settled();
          callback(grpcError(err));
        },
      );
    },
    // One ModelStreamInferResponse per response: one per request for an ordinary model, 0..n for a
    // decoupled one (grpc/stream-responses.ts); an error travels in error_message (the stream goes on);
    // the stream ends once the client has ended it and every request has its final response.
    ModelStreamInfer: (call: ServerDuplexStream<GrpcInferRequest, unknown>) => {
      const cancel = new CallCancel(call);
      // a method, not a closure bound to a name (ARCHITECTURE.md, hot paths): ends the call once the client
      // has ended it and every request has its final response
      const stream = {
        open: 0,
        ended: false,
        finish() {
          if (this.ended && this.open === 0) {
            cancel.settled();
            call.end();
          }
        },
      };
      // at most MAX_OUTSTANDING_PER_STREAM requests read and not yet fully answered: a client that does not
      // read its answers stops being read (grpc/stream-flow.ts)
      const flow = new StreamFlow(call);
      call.on('data', (msg: GrpcInferRequest) => {
        stream.open++;
        flow.taken();
        const answers = flow.request();
        const wantsFinal = asksForEmptyFinal(msg);
        // each message holds its share of --max-inflight-bytes until its final response (or is refused)
        const held = admitGrpcMessage(deps.inflight, msg);
        const done = held instanceof InferError
          ? Promise.resolve(answers.write(refusal(held, msg)))
          : streamInference(deps, new GrpcInferCall(msg, cancel.signal, held), (r) => {
            const out = streamResponse(r, wantsFinal);
            if (out) answers.write(out, r.left);
            else r.left();
          }).catch((err: unknown) => answers.write(refusal(err, msg))).finally(() => held.release());
        void done
          .then(() => {
            stream.open--;
            answers.done();
            stream.finish();
          });
      });
      call.on('end', () => {
        stream.ended = true;
        stream.finish();
      });
      call.on('error', () => {}); // a cancelled stream: answers still in flight are dropped
    },
  };
}

/** A stream request's refusal: its error in the response, the stream goes on. */
function refusal(err: unknown, msg: GrpcInferRequest): object {
  return { error_message: describeError(err).message, infer_response: { model_name: msg.model_name, model_version: msg.model_version, id: msg.id } };
}
