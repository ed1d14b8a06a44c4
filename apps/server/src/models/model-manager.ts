/**
 * ModelManager: owns every model version the server knows (state + reason, live config, loaded backend,
 * scheduler) and the repository control modes (none / poll / explicit). Others call it: the HTTP routes,
 * the KServe infer path, the live gateway.
 *
 * Every state change is a model.state event on the shared EventBus. Operations on one model are
 * serialised (load, reload, unload, live edits, save), so a poll and an API call never interleave on the
 * same model, while different models load independently.
 */
import type { AutotuneChangeReason, EventBus, InferPayload, InferResult, SchedulerRequest, DynamicBatchingPatch, ConfigChange, ModelState } from '@inferscope/core';
import { availableParallelism } from 'node:os';
import { InferError, errors, asInferError, SchedulerError } from '@inferscope/core';
import { checkModelName, type RepositoryDiff } from '@inferscope/core/repository';
import { modelsToLoadAtStart, pollChanges } from './repository-sync';
import { scanRepositories, type ScannedModel } from '../repository/scan';
import { drainVersions } from './version-loader';
import { KeyedLock } from './keyed-lock';
import { loadModel } from './model-load';
import { updateDynamicBatching, setInstanceCount, setIterativeKnobs, setResponseCache } from './live-edits';
import type { CancelSignal } from '../infer/cancellable';
import { enqueueRequest } from '../infer/enqueue';
import { saveModelConfig, type SaveResult } from './config-writeback/save-config';
import type { ModelRuntime } from './runtime';
import type { ControlMode, ModelEntry, RepositoryIndexRow, ServedModel, ServedModelInfo, VersionSlot } from './types';
import { listRows, indexRows, findSlot, highestReady, servedView, toVersion } from './views';
import { Ensembles, isEnsembleConfig } from './ensembles';
import { ensembleEditError } from '../ensemble/ensemble-scheduler';
import { composingOf, composingToLoad, unloadsWithEnsemble } from './ensemble-members';
import { AutotuneService, type AutotuneStatus } from './autotune-service';
import type { InferenceCache } from '@inferscope/core/response-cache';
import type { IterativeKnobPatch } from '@inferscope/core/live-config';
import { redactPaths } from '../infer/redact-paths';


export interface ModelManagerOptions {
  repositories: string[];
  controlMode: ControlMode;
  /** explicit mode: models loaded at start ('*' = all) */
  loadModels?: string[];
  /** poll mode: seconds between polls; 0 = no timer (tests call poll() themselves) */
  pollSecs?: number;
  gpuCount: number;
  bus: EventBus;
  runtime: ModelRuntime;
  /** microseconds on the server's monotonic clock (same origin as the schedulers' RealClock) */
  now?: () => number;
  log?: (msg: string) => void;
  /** the server's response cache (--cache-config); a model uses it when its config enables it */
  responseCache?: InferenceCache;
}

export class ModelManager {
  private readonly entries = new Map<string, ModelEntry>();
  /**
   * explicit mode: the models asked for by name (a load call, --load-model); the others loaded were brought
   * by an ensemble. Unloading an ensemble with `unload_dependents` takes only the latter with it (Triton).
   */
  private readonly requested = new Set<string>();
  /** last scan of each model (explicit mode lists models that are in the repository but not loaded) */
  private known = new Map<string, ScannedModel>();
  private readonly locks = new KeyedLock();
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private polling: Promise<RepositoryDiff> | undefined;
  private closed = false;
  /** ensemble versions: their state follows their composing models (apps/server/src/ensemble) */
  readonly ensembles = new Ensembles(this);
  /** the autotuner of every version whose config declares autotune_p99_ms or that control switched on */
  readonly autotune: AutotuneService;
  readonly now: () => number;
  readonly log: (msg: string) => void;

  constructor(readonly options: ModelManagerOptions) {
    this.now = options.now ?? (() => Math.round(performance.now() * 1000));
    this.log = options.log ?? (() => {});
    this.autotune = new AutotuneService({
      bus: options.bus,
      now: () => this.now(),
      log: (m) => this.log(m),
      config: (model, version) => {
        const v = this.get(model, version);
        return v && v.state === 'READY' ? v.config : undefined;
      },
      apply: (model, version, patch, reason) => this.updateDynamicBatching(model, version, patch, 'autotune', reason),
      setInstances: (model, version, count, reason) => this.setInstanceCount(model, version, undefined, count, 'autotune', reason),
      cores: availableParallelism(),
    });
  }

  get controlMode(): ControlMode { return this.options.controlMode; }
  get repositories(): string[] { return [...this.options.repositories]; }

  /** Scans the repositories and loads what the control mode says; starts the poll timer in poll mode. */
  async start(): Promise<void> {
    const scan = await scanRepositories(this.options.repositories);
    for (const u of scan.unreadable) this.log(`repository '${u.repository}' cannot be read: ${u.error}`);
    this.known = scan.models;
    const wanted = modelsToLoadAtStart(scan.models, this.options.controlMode, this.options.loadModels);
    const loading = new Set(wanted);
    for (const name of wanted) {
      const scanned = scan.models.get(name);
      if (!scanned) {
        this.log(`--load-model ${name}: ${errors.LOAD_NOT_FOUND(name).message}`);
        continue;
      }
      // explicit mode: an ensemble named by --load-model brings its composing models, as a later load does
      if (this.options.controlMode === 'explicit') this.requested.add(name);
      if (this.options.controlMode === 'explicit' && scanned.configText !== undefined) await this.loadComposing(scanned.configText, loading);
      await this.locked(name, () => this.loadScanned(scanned));
    }
    const secs = this.options.pollSecs ?? 0;
    if (this.options.controlMode === 'poll' && secs > 0) {
      this.pollTimer = setInterval(() => void this.poll().catch((e) => this.log(`poll failed: ${(e as Error).message}`)), secs * 1000);
      this.pollTimer.unref?.();
    }
  }

  /**
   * One poll of the repositories: loads added models, reloads changed ones, unloads removed ones, and
   * leaves unchanged models alone. Exposed so tests (and a future "rescan" button) trigger it directly.
   */
  poll(): Promise<RepositoryDiff> {
    // A poll that overlaps the previous one joins it instead of scanning twice.
    this.polling ??= this.pollOnce().finally(() => { this.polling = undefined; });
    return this.polling;
  }

  private async pollOnce(): Promise<RepositoryDiff> {
    const before = new Map([...this.known].map(([n, s]) => [n, s.fingerprint]));
    const scan = await scanRepositories(this.options.repositories);
    const diff = pollChanges(before, this.known, scan.models);
    this.known = scan.models;
    for (const name of [...diff.added, ...diff.modified]) {
      await this.locked(name, () => this.loadScanned(scan.models.get(name)!));
    }
    for (const name of diff.removed) {
      await this.locked(name, async () => {
        const entry = this.entries.get(name);
        this.entries.delete(name);
        if (entry) await drainVersions(this, entry.name, [...entry.versions.values()], 'removed from the repository');
      });
    }
    if (diff.added.length + diff.modified.length + diff.removed.length > 0) {
      this.log(`poll: added [${diff.added}] modified [${diff.modified}] removed [${diff.removed}]`);
    }
    return diff;
  }

  /** Loads (or reloads) one scanned model (see model-load.ts). Returns the failure, if any. */
  private loadScanned(scanned: ScannedModel): Promise<string | undefined> {
    return loadModel(this, this.entries.get(scanned.name), scanned, (entry) => this.entries.set(entry.name, entry));
  }

  /** Emits model.state and records it on the slot. */
  setState(model: string, slot: VersionSlot | undefined, state: ModelState, reason?: string): void {
    if (slot) {
      slot.state = state;
      slot.reason = reason;
    }
    this.options.bus.emit({ type: 'model.state', t: this.now(), model, version: slot ? String(slot.version) : '', state, ...(reason ? { reason } : {}) });
    this.log(`${model}${slot ? ':' + slot.version : ''} ${state}${reason ? ` (${reason})` : ''}`);
    this.ensembles.modelChanged(model);
  }

  private locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(name, fn);
  }

  // ----------------------------------------------------------------------------------------- lookups

  list(): ServedModelInfo[] {
    return listRows(this.entries.values()).map((row) => {
      const autotune = this.autotune.status(row.name, row.version);
      return autotune ? { ...row, autotune } : row;
    });
  }

  /** Switches a version's autotuner on (target in ms, else the one it had or its config declares) or off. */
  async setAutotune(name: string, version: string | undefined, enabled: boolean, targetMs?: number): Promise<AutotuneStatus> {
    const v = this.require(name, version);
    return this.autotune.set(name, v.version, enabled, targetMs);
  }

  /**
   * Re-reads which models the repositories hold (nothing is loaded or unloaded): in explicit mode the
   * index lists models added to the repository since start, as Triton's index does.
   */
  async refreshIndex(): Promise<void> {
    if (this.options.controlMode !== 'explicit' || this.closed) return;
    const scan = await scanRepositories(this.options.repositories);
    this.known = scan.models;
  }

  /**
   * Triton's repository index (HTTP, gRPC): every model in the repositories, with state per version when
   * known. A failure reason may quote a backend or the filesystem, so no server path is left in it.
   */
  index(readyOnly = false): RepositoryIndexRow[] {
    return indexRows(this.known.keys(), this.entries, readyOnly).map((row) => (row.reason ? { ...row, reason: redactPaths(row.reason) } : row));
  }

  private slotOf(name: string, version?: number): { entry: ModelEntry; slot: VersionSlot } {
    return findSlot(this.entries, name, version);
  }

  /**
   * A model version for the request path, or throws InferError with Triton's message and code.
   * version undefined = the highest READY version (Triton).
   */
  require(name: string, version?: number | string): ServedModel {
    const { entry, slot } = this.slotOf(name, toVersion(version));
    return servedView(entry, slot);
  }

  /** Like require() but undefined instead of throwing; a given version is returned in any state. */
  get(name: string, version?: number | string): ServedModel | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    const v = toVersion(version);
    if (v !== undefined) {
      const slot = entry.versions.get(v);
      return slot ? servedView(entry, slot) : undefined;
    }
    // the highest READY version, else the highest of all (this runs on every inference: the second scan only without a READY one)
    let slot = highestReady(entry);
    if (!slot) for (const s of entry.versions.values()) if (!slot || s.version > slot.version) slot = s;
    return slot ? servedView(entry, slot) : undefined;
  }

  isReady(name: string, version?: number | string): boolean {
    try {
      this.slotOf(name, toVersion(version));
      return true;
    } catch {
      return false;
    }
  }

  /** True when every model that is loaded (or failed to load) has all its versions READY. */
  allReady(): boolean {
    for (const entry of this.entries.values()) {
      if (entry.versions.size === 0 && entry.resolved.error) return false;
      for (const slot of entry.versions.values()) if (slot.state !== 'READY' && slot.reason !== 'unloaded') return false;
    }
    return !this.closed;
  }

  // ---------------------------------------------------------------------------------------- requests

  /**
   * Queues one request. `signal` aborts when the client went away: a request still queued then is
   * cancelled (answered 'cancelled', no batch slot taken); one already in a running batch completes and
   * its answer is discarded by the caller (its executor sees the signal in the payload and may stop early).
   */
  infer(name: string, version: number | string | undefined, req: SchedulerRequest<InferPayload>, signal?: CancelSignal): Promise<InferResult> {
    let slot: VersionSlot;
    try {
      slot = this.slotOf(name, toVersion(version)).slot;
    } catch (err) {
      return Promise.reject(SchedulerError.of('unavailable', asInferError(err)));
    }
    // the response cache answers a hit here, before any queue; a miss goes on and its answer is stored.
    // Every door (HTTP, gRPC, an ensemble's step, BLS) comes through here, so an ensemble caches at its
    // top level and each composing model on its own, as in Triton.
    const cache = this.options.responseCache;
    if (cache && slot.config?.response_cache?.enable) {
      return cache.infer({ model: name, version: slot.version, request: req, startUs: this.now() }, () => this.enqueue(name, slot, req, signal));
    }
    return this.enqueue(name, slot, req, signal);
  }

  private enqueue(name: string, slot: VersionSlot, req: SchedulerRequest<InferPayload>, signal?: CancelSignal): Promise<InferResult> {
    return enqueueRequest(this.options.bus, name, String(slot.version), slot.scheduler!, req, signal);
  }

  // ------------------------------------------------------------------------------- explicit control

  private checkControl(name: string): void {
    if (this.options.controlMode !== 'explicit') throw errors.CONTROL_NOT_ALLOWED();
    const bad = checkModelName(name);
    if (bad) throw new InferError('INVALID_ARG', bad);
  }

  /**
   * Explicit mode: (re)load one model from the repositories. Rejects with the load failure, if any.
   * Loading an ensemble first loads the composing models that are not READY (Triton does the same).
   * `override` (Triton's load parameters `config` / `file:`) replaces what the scan found: a new config
   * text, or a whole model folder written elsewhere; it is always loaded afresh.
   */
  async load(
    name: string,
    override?: (found: ScannedModel | undefined) => Promise<ScannedModel | undefined>,
    loading: Set<string> = new Set(),
    /** false when an ensemble's load brings this model (see `requested`) */
    requested = true,
  ): Promise<void> {
    this.checkControl(name);
    const scan = await scanRepositories(this.options.repositories);
    const scanned = override ? await override(scan.models.get(name)) : scan.models.get(name);
    // Triton: INTERNAL (500) "failed to load 'x', failed to poll from model repository".
    if (!scanned) throw errors.LOAD_NOT_FOUND(name);
    if (requested) this.requested.add(name);
    this.known.set(name, scanned);
    loading.add(name);
    if (scanned.configText !== undefined) await this.loadComposing(scanned.configText, loading);
    const failure = await this.locked(name, async () => {
      const current = this.entries.get(name);
      const unchanged = current && current.scanned.fingerprint === scanned.fingerprint && current.versions.size > 0 &&
        [...current.versions.values()].every((s) => s.state === 'READY');
      return unchanged ? undefined : this.loadScanned(scanned);
    });
    if (failure) throw new InferError('INVALID_ARG', `load failed for model '${name}': ${failure}`);
  }

  /** For an ensemble: its composing models that are not READY yet; a failure shows in the ensemble's reason. */
  private async loadComposing(configText: string, loading: Set<string>): Promise<void> {
    for (const model of composingToLoad((t) => this.options.runtime.config.parse(t), configText, loading, (m) => this.isReady(m))) {
      // a model may have come up meanwhile (an earlier one's own composing models)
      if (loading.has(model) || this.isReady(model)) continue;
      await this.load(model, undefined, loading, false).catch((e) => this.log(`loading '${model}' for an ensemble: ${(e as Error).message}`));
    }
  }

  /**
   * Explicit mode: unload every version of a model; drains, so every accepted request is answered.
   * `dependents` (Triton's `unload_dependents`): an ensemble's composing models go too, when they were
   * loaded for an ensemble (not asked for by name) and no other loaded ensemble runs them; nested
   * ensembles likewise. Without it they stay loaded, as in Triton.
   */
  async unload(name: string, options: { dependents?: boolean } = {}): Promise<void> {
    this.checkControl(name);
    if (!this.entries.has(name)) throw errors.UNLOAD_NOT_SERVED();
    const composing = options.dependents ? composingOf(this.entries, name) : [];
    await this.locked(name, async () => {
      const entry = this.entries.get(name);
      if (entry) await drainVersions(this, name, [...entry.versions.values()], 'unloaded');
    });
    this.requested.delete(name);
    for (const model of composing) {
      if (unloadsWithEnsemble(this.entries, model, this.requested)) await this.unload(model, options);
    }
  }

  // ----------------------------------------------------------------------------- live configuration

  updateDynamicBatching(name: string, version: number | string | undefined, patch: DynamicBatchingPatch, by: string, reason?: AutotuneChangeReason): Promise<ConfigChange[]> {
    return this.liveEdit(name, version, 'dynamic batching', (entry, slot) => updateDynamicBatching(this.options, entry, slot, patch, by, reason));
  }

  setInstanceCount(name: string, version: number | string | undefined, group: string | undefined, count: number, by: string, reason?: AutotuneChangeReason): Promise<ConfigChange[]> {
    return this.liveEdit(name, version, 'instance count', (entry, slot) => setInstanceCount(this.options, entry, slot, group, count, by, reason));
  }

  /** An iterative model's step knobs, live (live-edits.ts; applied at the next step boundary). */
  setIterativeKnobs(name: string, version: number | string | undefined, patch: IterativeKnobPatch, by: string): Promise<ConfigChange[]> {
    return this.liveEdit(name, version, undefined, (entry, slot) => setIterativeKnobs(this.options, entry, slot, patch, by));
  }

  /** The response cache on or off for a version, live (live-edits.ts says when it is refused). */
  setResponseCache(name: string, version: number | string | undefined, enabled: boolean, by: string): Promise<ConfigChange[]> {
    return this.liveEdit(name, version, undefined, (entry, slot) => setResponseCache({ ...this.options, now: this.now, hasCache: this.options.responseCache !== undefined }, entry, slot, enabled, by));
  }

  /** One live edit of a version under its model's lock; `ensembleRefusal` names an edit an ensemble has no use for. */
  private liveEdit(name: string, version: number | string | undefined, ensembleRefusal: Parameters<typeof ensembleEditError>[1] | undefined, edit: (entry: ModelEntry, slot: VersionSlot) => ConfigChange[] | Promise<ConfigChange[]>): Promise<ConfigChange[]> {
    return this.locked(name, async () => {
      const { entry, slot } = this.slotOf(name, toVersion(version));
      if (ensembleRefusal && isEnsembleConfig(slot.config)) throw ensembleEditError(name, ensembleRefusal);
      return edit(entry, slot);
    });
  }

  /**
   * Writes the live config of a model back to its config.pbtxt as the file is now (atomic, the user's
   * previous file kept as .bak; nothing written when the file already holds the live values). Under the
   * model's lock: two saves, or a save and a live edit, never interleave.
   */
  saveConfig(name: string, opts: { dryRun?: boolean; version?: string } = {}): Promise<SaveResult> {
    return this.locked(name, async () => {
      // The version whose live config is written (one config.pbtxt serves every version, as in Triton).
      const { entry, slot } = this.slotOf(name, toVersion(opts.version));
      const result = await saveModelConfig(entry, slot, this.options.runtime.config, !!opts.dryRun);
      if (result.written) this.known.set(name, entry.scanned);
      return result;
    });
  }

  /** Stops polling and unloads everything, draining in-flight requests. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.autotune.close();
    await this.polling?.catch(() => {});
    await Promise.all(
      [...this.entries.values()].map((e) => this.locked(e.name, () => drainVersions(this, e.name, [...e.versions.values()], 'server shutting down'))),
    );
  }
}
