/**
 * Find the model version a request addresses, with Triton's messages and codes:
 * - name unknown                 -> 404 "Request for unknown model: 'x' is not found"
 * - version unknown              -> 404 "Request for unknown model: 'x' version 3 is not found"
 * - no READY version (latest)    -> 404 "Request for unknown model: 'x' has no available versions"
 * - version known, not READY     -> 503 "Request for unknown model: 'x' version 1 is not at ready state"
 * Triton's lifecycle answers an unknown name with NOT_FOUND (404); recent releases check the name earlier
 * and say INVALID_ARG (400). We keep 404, like the ModelManager and the metadata routes, so one server
 * answers one way.
 */
import type { InferPayload, InferResult, ModelState, SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { errors } from '@inferscope/core';
import type { CancelSignal } from './cancellable';

/** The part of a served model version the KServe routes read (the ModelManager's ServedModel fits). */
export interface ServedModelView {
  name: string;
  version: string;
  state: ModelState;
  reason?: string;
  config: ModelConfig;
  /** the repository folder holding the model folder (label files are read from there) */
  repository?: string;
}

/** What the infer routes need from the ModelManager. */
export interface InferModelSource {
  /** version undefined = the highest READY version */
  get(name: string, version?: string): ServedModelView | undefined;
  /** `signal` aborts when the client went away (a still-queued request is then cancelled) */
  infer(name: string, version: string, req: SchedulerRequest<InferPayload>, signal?: CancelSignal): Promise<InferResult>;
  /** every known model version; used to tell an unknown name from an unknown/unready version */
  list?(): Array<{ name: string; version: string; state: ModelState; reason?: string }>;
}

export function resolveModel(source: InferModelSource, name: string, version?: string): ServedModelView {
  const served = source.get(name, version);
  if (served && served.state === 'READY') return served;
  const known = source.list ? source.list().filter((m) => m.name === name) : served ? [served] : [];
  if (known.length === 0) throw errors.UNKNOWN_MODEL(name);
  if (version === undefined) {
    throw errors.NO_AVAILABLE_VERSION(name);
  }
  const v = served ?? known.find((m) => m.version === version);
  if (!v) throw errors.UNKNOWN_VERSION(name, version);
  throw errors.VERSION_NOT_READY(name, version);
}
