/**
 * One answer to "is the server ready?" for GET /v2/health/ready and gRPC ServerReady. Never while it
 * shuts down. With strict readiness (Triton's default) only while every model the server was asked to
 * serve is READY, so a load balancer keeps traffic away from a replica that lacks a model; without it
 * (`--strict-readiness false`), whenever it accepts requests: a host that cannot run one backend (no torch,
 * no numpy) still takes traffic for the models it serves, and model readiness is asked per model.
 */
import type { ModelManager } from '../models/model-manager';

export function serverReadiness(manager: Pick<ModelManager, 'allReady'>, accepting: () => boolean, strict: boolean): () => boolean {
  return () => accepting() && (!strict || manager.allReady());
}
