/**
 * The dashboard's sweep, run inside the server: the same analysis as `inferscope analyze` (grid, pruning,
 * leader confirmation, ranking) with in-process deps: configs applied through the model manager's live
 * control (no reload), traffic and measurement through the server's own HTTP endpoint (the CLI's
 * measurement, so figures compare). One sweep at a time; progress goes out in every stats message; the
 * original config is restored at the end unless the person applies the best one.
 */
import type { DeviceMemory, ModelSnapshot, StartSweepRequest, SweepConfig, SweepProgress, SweepResult } from '@inferscope/core';
import { HttpTarget } from '../../loadgen/targets';
import type { ControlTarget } from '../../control/types';
import { originalConfig, planConfigs, runAnalysis } from './analysis';
import { measureConfig } from './live-target';
import { rankResults } from '@inferscope/core/load';
import { searchFor, type SweepDeps } from './sweep';

export interface SweepHost {
  control: Pick<ControlTarget, 'updateDynamicBatching' | 'setInstanceCount'>;
  models(): ModelSnapshot[];
  memory(): DeviceMemory[];
  /** this server's own HTTP address (the sweep's traffic goes through the real request path) */
  url(): string;
  log?(line: string): void;
}

class Stopped extends Error {}

/** A dashboard sweep runs one config per second or so: 200 is already minutes of the model's time. */
export const MAX_CONFIGS = 200;

export class SweepController {
  private latest: SweepProgress | undefined;
  private stopRequested = false;
  private running: Promise<void> | undefined;
  private seq = 0;

  constructor(private readonly host: SweepHost) {}

  progress(): SweepProgress | undefined {
    return this.latest;
  }

  /** Plans the grid (errors come back at once, in the ack) and runs it in the background. */
  start(req: StartSweepRequest, by: string): { id: string; total: number } {
    if (this.latest?.state === 'running') throw new Error(`a sweep of ${this.latest.model} is running (stop it first)`);
    const rows = this.host.models().filter((m) => m.name === req.model && (!req.version || m.version === req.version) && m.state === 'READY');
    if (rows.length === 0) throw new Error(`model '${req.model}'${req.version ? ` version ${req.version}` : ''} is not loaded`);
    const row = rows[rows.length - 1];
    const version = req.version ?? row.version;
    const original = originalConfig(row);
    const configs = planConfigs(original, { instances: req.instances, maxBatch: req.max_batch, delayUs: req.delay_us, preferred: req.preferred ?? ['none', 'max'] });
    if (configs.length === 0) throw new Error('the sweep has no configs to try (check the preferred sizes against max_batch)');
    if (configs.length > MAX_CONFIGS) throw new Error(`the sweep grid has ${configs.length} configs; at most ${MAX_CONFIGS} (narrow an axis)`);
    const confirm = req.confirm ?? 1;
    const latencyBudgetUs = req.latency_budget_ms === undefined ? undefined : req.latency_budget_ms * 1000;
    const id = `sweep-${++this.seq}`;
    const p: SweepProgress = { id, model: req.model, version, state: 'running', done: 0, total: configs.length + confirm, results: [], skipped: 0, original, latency_budget_us: latencyBudgetUs };
    this.latest = p;
    this.stopRequested = false;
    this.host.log?.(`sweep ${id} of ${req.model} v${version} by ${by}: ${configs.length} configs`);
    this.running = this.execute(p, req, configs, original, confirm);
    return { id, total: p.total };
  }

  stop(): boolean {
    if (this.latest?.state !== 'running') return false;
    this.stopRequested = true;
    return true;
  }

  async close(): Promise<void> {
    this.stop();
    await this.running;
  }

  private async execute(p: SweepProgress, req: StartSweepRequest, configs: SweepConfig[], original: SweepConfig, confirm: number): Promise<void> {
    const concurrency = req.concurrency ?? 16;
    const target = new HttpTarget({ url: this.host.url(), binary: true, seed: 1, maxSockets: concurrency + 16 });
    const version = p.version;
    const measured: SweepResult[] = [];
    const budgets = { latencyBudgetUs: p.latency_budget_us };
    const apply = async (c: SweepConfig) => {
      if (this.stopRequested) throw new Stopped('stopped');
      await this.host.control.updateDynamicBatching(p.model, version, {
        max_batch_size: c.max_batch_size, preferred_batch_size: c.preferred_batch_size, max_queue_delay_microseconds: c.max_queue_delay_microseconds,
      }, `sweep:${p.id}`);
      await this.host.control.setInstanceCount(p.model, version, undefined, c.instances, `sweep:${p.id}`);
    };
    const memoryBytes = async () =>
      this.host.memory().flatMap((d) => d.entries).filter((e) => e.model === p.model && e.version === version).reduce((n, e) => n + e.bytes, 0);
    const deps: SweepDeps = {
      apply: async (c) => {
        await apply(c);
        p.current = c;
      },
      measure: async (c) => {
        const r = await measureConfig(target, {
          model: p.model, version, mode: { kind: 'concurrency', concurrency }, batchSize: 1,
          measurementIntervalMs: req.measurement_interval_ms ?? 1000, stabilityPercent: 10, maxTrials: 10,
        }, memoryBytes);
        measured.push({ config: c, ...r });
        p.done++;
        p.results = rankResults(measured, budgets);
        return r;
      },
      log: (line) => {
        if (line.includes(' skip ')) {
          p.skipped++;
          p.done++;
        }
        this.host.log?.(`${p.id}: ${line}`);
      },
    };
    try {
      const { run, ranked } = await runAnalysis(configs, deps, { search: searchFor(req.search ?? 'auto', configs.length), confirm, ...budgets });
      p.results = ranked;
      p.skipped = run.skipped.length;
      p.state = 'done';
    } catch (err) {
      p.state = err instanceof Stopped ? 'stopped' : 'failed';
      if (!(err instanceof Stopped)) p.error = err instanceof Error ? err.message : String(err);
    } finally {
      p.current = undefined;
      p.done = Math.max(p.done, p.state === 'done' ? p.total : p.done);
      // The sweep borrowed the model: give it back as it was (the panel's "apply best" sets the winner).
      this.stopRequested = false;
      await apply(original).catch((err: unknown) => this.host.log?.(`${p.id}: restoring the original config failed: ${String(err)}`));
      target.close();
    }
  }
}
