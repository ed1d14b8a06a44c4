/**
 * The dashboard's mutable picture of the server, fed by the socket (snapshot, frames, stats) or by the
 * in-browser simulator (same SchedulerEvent type). It is deliberately NOT React state: thousands of
 * events a second mutate it in place, `rev` counts the mutations and canvases redraw once per animation
 * frame when it moved. `structureRev` moves only on rare changes (models, states, configs, instance set)
 * and is what React re-renders on.
 */
import { autotuneReport } from '@inferscope/core/autotune';
import type { DeviceMemory, Frame, LiveHistory, ModelAggregate, SchedulerEvent, Snapshot, StatsMessage } from '@inferscope/core';
import { GenerationView, type GenerationMessage } from '@inferscope/core/live';
import { Ring } from './ring';
import { LiveStreams } from './live-streams';
import { batchCompleted, batchFormed, batchStarted, leftQueue } from './live-batches';
import { isDecoupled } from '@inferscope/core/config';
import { applyConfigChanges, configLabel } from './config-paths';
import type {
  BatchLive, ConfigLogEntry, MemorySample, ModelLive, PerfPoint, QueueSample, RequestLive, StateChange,
} from './live-types';
import { modelKey } from './live-types';
import { epochOf, shiftRing, startTimeOf, type RestartMark, type ServerEpoch } from './server-restart';

/** Bound on requests tracked in flight: events lost to sampling must not leak memory. */
const MAX_IN_FLIGHT = 20_000;

export class LiveModel {
  rev = 0;
  structureRev = 0;
  /** latest scheduler time seen, µs */
  now = 0;
  models = new Map<string, ModelLive>();
  repositories: string[] = [];
  devices = new Map<string, DeviceMemory>();
  requests = new Map<string, RequestLive>();
  batches = new Map<string, BatchLive>();
  finished = new Ring<RequestLive>(4000);
  private readonly streams = new LiveStreams(this.finished);
  timeline = new Ring<BatchLive>(4000);
  stateLog = new Ring<StateChange>(500);
  configLog = new Ring<ConfigLogEntry>(200);
  queueSamples = new Ring<QueueSample>(6000);
  memorySamples = new Ring<MemorySample>(3000);
  stats = new Ring<StatsMessage>(900);
  perfPoints = new Ring<PerfPoint>(3000);
  /** an iterative model's token timeline, KV block map and figures points, by model key (the `generation` message) */
  generation = new Map<string, GenerationView>();
  /** server restarts seen across reconnects, on the current server's clock (chart markers) */
  restarts = new Ring<RestartMark>(50);
  /** the server process the latest snapshot came from */
  epoch: ServerEpoch | undefined;
  /** frames whose seq did not follow the previous one (lost while reconnecting) */
  seqGaps = 0;
  /** events the server left out of our frames because this client was slow */
  droppedEvents = 0;
  eventsSeen = 0;
  /** how often queue depth is sampled for the State view (teaching mode samples finer) */
  queueSampleUs = 100_000;
  /** `model:version/request_id` of a step request just sent -> its ensemble request (its request.queued follows) */
  private stepLinks = new Map<string, { parent: string; step: number }>();
  private lastSeq = -1;
  private nextQueueSample = 0;

  reset(): void {
    this.models.clear();
    this.devices.clear();
    this.requests.clear();
    this.batches.clear();
    this.stepLinks.clear();
    this.streams.clear();
    this.generation.clear();
    for (const r of [this.finished, this.timeline, this.stateLog, this.configLog, this.queueSamples, this.memorySamples, this.stats, this.perfPoints, this.restarts]) r.clear();
    this.epoch = undefined;
    this.lastSeq = -1;
    this.nextQueueSample = 0;
    this.now = 0;
    this.eventsSeen = 0;
    this.droppedEvents = 0;
    this.seqGaps = 0;
    this.rev++;
    this.structureRev++;
  }

  /**
   * A snapshot replaces the model picture but keeps history (charts survive a resync, and a restart:
   * server-restart.ts). Returns true when it came from a different server process than the last one.
   */
  applySnapshot(s: Snapshot): boolean {
    const epoch = epochOf(s);
    const restarted = this.epoch !== undefined && epoch !== undefined && epoch.startId !== this.epoch.startId;
    if (restarted) this.carryAcrossRestart(s, epoch.clockZeroUs - this.epoch!.clockZeroUs);
    this.epoch = epoch ?? this.epoch;
    this.models.clear();
    this.requests.clear();
    this.batches.clear();
    this.repositories = [...s.repositories];
    s.models.forEach((m, i) => {
      const key = modelKey(m.name, m.version);
      const queued = new Map<number, number>();
      for (const [level, n] of Object.entries(m.queue_depth ?? {})) queued.set(Number(level), n);
      this.models.set(key, {
        key, name: m.name, version: m.version, state: m.state, reason: m.reason, repository: m.repository,
        backend: m.backend, platform: m.platform, config: structuredClone(m.config), files: m.files ?? [],
        queued, colour: i, autotune: m.autotune, sequence: m.sequence,
        instances: new Map(m.instances.map((x) => [x.name, { ...x, batchId: x.batch_id }])),
      });
    });
    this.devices = new Map(s.memory.map((d) => [d.device, d]));
    this.now = Math.max(this.now, s.t);
    this.lastSeq = -1;
    if (s.history) this.applyHistory(s.history);
    if (s.stats) this.applyStats(s.stats);
    this.rev++;
    this.structureRev++;
    return restarted;
  }

  /** The charts' history moves onto the new process's clock; the views of single requests start afresh. */
  private carryAcrossRestart(s: Snapshot, deltaUs: number): void {
    for (const r of [this.stats, this.perfPoints, this.configLog, this.stateLog, this.queueSamples, this.memorySamples, this.restarts] as Ring<{ t: number }>[]) shiftRing(r, deltaUs);
    this.finished.clear();
    this.timeline.clear();
    this.generation.clear(); // the new process's feeds start afresh (and on its clock)
    this.restarts.push({ t: startTimeOf(s), startId: s.server.start_id ?? '' });
    this.now = s.t;
    this.nextQueueSample = 0;
  }

  /** The tuner's status as the control channel answered it (setAutotune's acknowledgement). */
  setAutotune(key: string, status: ModelLive['autotune']): void {
    const m = this.models.get(key);
    if (!m) return;
    m.autotune = status;
    this.rev++;
    this.structureRev++;
  }

  applyFrame(f: Frame): void {
    if (this.lastSeq >= 0 && f.seq !== this.lastSeq + 1) this.seqGaps++;
    this.lastSeq = f.seq;
    this.droppedEvents += f.dropped;
    for (const e of f.events) this.apply(e);
    if (f.t > this.now) this.now = f.t;
    this.rev++;
  }

  /**
   * Backfills the rings from the server's recent history, so a reload starts with minutes of charts.
   * Only entries newer than what is held are added (a resync must not duplicate); a history that ends
   * before what is held comes from another server process (a restart: its clock started again) and
   * replaces it.
   */
  applyHistory(h: LiveHistory): void {
    // an empty history (a server that has not sampled yet) says nothing about which process is older
    const newest = h.stats.at(-1)?.t;
    if (newest !== undefined && newest < (this.stats.last()?.t ?? -Infinity)) {
      this.stats.clear();
      this.perfPoints.clear();
      this.configLog.clear();
    }
    const lastConfigT = this.configLog.last()?.t ?? -Infinity;
    for (const e of h.config_changes) {
      if (e.t > lastConfigT) this.configLog.push({ t: e.t, modelKey: modelKey(e.model, e.version), by: e.by, changes: e.changes, reason: e.reason });
    }
    const lastT = this.stats.last()?.t ?? -Infinity;
    for (const s of h.stats) if (s.t > lastT) this.applyStats(s);
  }

  applyGeneration(g: GenerationMessage): void {
    for (const u of g.models) {
      const key = modelKey(u.model, u.version);
      let view = this.generation.get(key);
      if (!view) this.generation.set(key, (view = new GenerationView()));
      view.apply(u);
    }
    this.rev++;
  }

  applyStats(s: StatsMessage): void {
    if ((this.stats.last()?.t ?? -Infinity) >= s.t) return;
    this.stats.push(s);
    for (const a of s.models) {
      const m = this.models.get(modelKey(a.model, a.version));
      if (!m) continue;
      // The server's queue depth is the truth: it repairs counts that drifted when frames were sampled.
      m.queued = new Map(Object.entries(a.queue_depth).map(([k, v]) => [Number(k), v]));
      if (a.throughput_per_s > 0) {
        this.perfPoints.push({ t: s.t, modelKey: m.key, config: configLabel(m), throughput: a.throughput_per_s, p99Us: a.latency_us.p99 });
      }
    }
    // the tuner's status moves without a config change (met, not met, holding): the server sends it each second
    for (const { model, version, ...report } of s.autotune ?? []) {
      const m = this.models.get(modelKey(model, version));
      if (m) m.autotune = report;
    }
    this.rev++;
  }

  latestAggregate(key: string): ModelAggregate | undefined {
    const last = this.stats.last();
    return last?.models.find((a) => modelKey(a.model, a.version) === key);
  }

  apply(e: SchedulerEvent): void {
    this.eventsSeen++;
    if (e.t > this.now) this.now = e.t;
    // The queues are sampled as they stood until this event: sampled after it, sparse traffic (a request
    // queued and batched within a millisecond, seconds apart) showed every sample at its arrival, one
    // request waiting all the time.
    if (e.t >= this.nextQueueSample) this.sampleQueues(e.t);
    switch (e.type) {
      case 'request.queued': {
        const key = modelKey(e.model, e.version);
        const m = this.models.get(key);
        if (m) m.queued.set(e.priority, (m.queued.get(e.priority) ?? 0) + 1);
        const id = `${key}/${e.request_id}`;
        const link = this.stepLinks.size > 0 ? this.stepLinks.get(id) : undefined;
        if (link) this.stepLinks.delete(id);
        this.track({ id, modelKey: key, priority: e.priority, size: e.batch_size, tQueued: e.t, phase: 'queued', protocol: e.protocol, ...link });
        break;
      }
      case 'ensemble.step': {
        const parentKey = modelKey(e.parent.model, e.parent.version);
        const ens = this.models.get(parentKey);
        if (ens && e.step >= 0) {
          const sent = (ens.stepsSent ??= []);
          while (sent.length <= e.step) sent.push(0);
          sent[e.step]!++;
        }
        // bounded like the requests: links whose request.queued was sampled away must not pile up
        if (this.stepLinks.size >= MAX_IN_FLIGHT) this.stepLinks.delete(this.stepLinks.keys().next().value!);
        this.stepLinks.set(`${modelKey(e.model, e.version)}/${e.request_id}`, { parent: `${parentKey}/${e.parent.request_id}`, step: e.step });
        break;
      }
      case 'request.delayed': {
        const r = this.requests.get(`${modelKey(e.model, e.version)}/${e.request_id}`);
        if (r) r.delayed = true;
        break;
      }
      case 'batch.formed':
        batchFormed(this, e);
        break;
      case 'batch.started':
        batchStarted(this, e);
        break;
      case 'batch.completed':
        batchCompleted(this, e);
        break;
      case 'request.completed': {
        const key = modelKey(e.model, e.version);
        const id = `${key}/${e.request_id}`;
        const r = this.requests.get(id) ?? {
          id, modelKey: key, priority: e.priority, size: e.batch_size, tQueued: e.t - e.total_us, phase: 'done' as const,
        };
        // an ensemble's own request forms no batch: it leaves the queue count when it is answered
        const m = e.steps !== undefined && r.phase === 'queued' ? this.models.get(key) : undefined;
        if (m) leftQueue(m, r.priority);
        this.requests.delete(id);
        Object.assign(r, { phase: 'done', tDone: e.t, ok: e.ok, totalUs: e.total_us, batchId: e.batch_id });
        // a decoupled model's answers are its responses (request.response), not the end of its execute()
        const model = this.models.get(key);
        if (e.ok && model && isDecoupled(model.config)) this.streams.completed(r);
        else this.finished.push(r);
        break;
      }
      case 'request.cache': {
        // a hit has no other event (no queue, no batch): it is born answered, at the door; a miss already
        // went the whole way and its request.completed drew it
        if (e.outcome !== 'hit') break;
        const key = modelKey(e.model, e.version);
        this.finished.push({ id: `${key}/${e.request_id}`, modelKey: key, priority: 1, size: e.batch_size, tQueued: e.t - e.total_us, phase: 'done', tDone: e.t, ok: true, totalUs: e.total_us, cached: true });
        break;
      }
      case 'request.response': {
        const key = modelKey(e.model, e.version);
        const id = `${key}/${e.request_id}`;
        this.streams.response(e, id, key, this.requests.get(id));
        break;
      }
      case 'request.rejected': {
        const key = modelKey(e.model, e.version);
        const id = `${key}/${e.request_id}`;
        const r = this.requests.get(id) ?? { id, modelKey: key, priority: e.priority ?? 1, size: 1, tQueued: e.t, phase: 'rejected' as const, protocol: e.protocol };
        const m = this.models.get(key);
        if (m && r.phase === 'queued' && this.requests.has(id)) leftQueue(m, r.priority);
        this.requests.delete(id);
        Object.assign(r, { phase: 'rejected', tDone: e.t, ok: false, reason: e.reason, message: e.message });
        this.finished.push(r);
        break;
      }
      case 'instance.state': {
        const key = modelKey(e.model, e.version);
        const m = this.models.get(key);
        if (m) {
          const known = m.instances.get(e.instance);
          if (known) {
            // busy <-> idle flips thousands of times a second: not a structural change for React.
            const structural = !(['busy', 'idle'].includes(known.state) && ['busy', 'idle'].includes(e.state));
            known.state = e.state;
            known.reason = e.reason;
            if (structural) this.structureRev++;
          } else {
            m.instances.set(e.instance, { name: e.instance, group: e.instance.replace(/_\d+$/, ''), kind: e.kind, device: e.device, state: e.state, reason: e.reason });
            this.structureRev++;
          }
        }
        if (e.state !== 'busy' && e.state !== 'idle') this.stateLog.push({ t: e.t, modelKey: key, instance: e.instance, state: e.state, reason: e.reason });
        break;
      }
      case 'model.state': {
        const key = modelKey(e.model, e.version);
        const m = this.models.get(key);
        if (m) {
          m.state = e.state;
          m.reason = e.reason;
        }
        this.stateLog.push({ t: e.t, modelKey: key, state: e.state, reason: e.reason });
        this.structureRev++;
        break;
      }
      case 'sequence.slots': {
        const m = this.models.get(modelKey(e.model, e.version));
        if (m) m.sequence = e.view;
        break;
      }
      case 'memory': {
        this.devices.set(e.device, { device: e.device, used_bytes: e.used_bytes, budget_bytes: e.budget_bytes, entries: e.entries });
        this.memorySamples.push({ t: e.t, device: e.device, used: e.used_bytes, budget: e.budget_bytes });
        break;
      }
      case 'config.changed': {
        const key = modelKey(e.model, e.version);
        const m = this.models.get(key);
        if (m) applyConfigChanges(m.config, e.changes);
        // a tuner's change says it runs, with its target, also to a dashboard that did not switch it on
        if (m && e.by === 'autotune' && e.reason) {
          // the status comes with the next stats message; until then the one known (or "measuring")
          const status = m.autotune?.enabled ? m.autotune.status : { state: 'measuring' as const, target_us: e.reason.target_us, delay_us: Number((m.config.dynamic_batching as { max_queue_delay_microseconds?: number } | undefined)?.max_queue_delay_microseconds ?? 0) };
          m.autotune = autotuneReport(true, status, e.reason);
        }
        this.configLog.push({ t: e.t, modelKey: key, by: e.by, changes: e.changes, reason: e.reason });
        this.structureRev++;
        break;
      }
    }
  }

  /** The request waiting longest in a model's queue, or undefined when nothing waits. */
  oldestQueued(key: string): RequestLive | undefined {
    // Map iteration follows insertion order = arrival order, so the first queued one is the oldest.
    for (const r of this.requests.values()) if (r.modelKey === key && r.phase === 'queued') return r;
    return undefined;
  }

  private sampleQueues(t: number): void {
    for (const m of this.models.values()) {
      const depth: Record<number, number> = {};
      for (const [level, n] of m.queued) depth[level] = n;
      const oldest = this.oldestQueued(m.key);
      this.queueSamples.push({ t, modelKey: m.key, depth, oldestWaitUs: oldest ? t - oldest.tQueued : 0 });
    }
    this.nextQueueSample = t + this.queueSampleUs;
  }

  private track(r: RequestLive): void {
    if (this.requests.size >= MAX_IN_FLIGHT) {
      const oldest = this.requests.keys().next().value;
      if (oldest !== undefined) this.requests.delete(oldest);
    }
    this.requests.set(r.id, r);
  }
}
