/**
 * Small fakes for ModelManager tests: a JSON "config engine", a backend whose executor echoes inputs, and
 * a pass-through scheduler that counts in-flight requests (so drain behaviour is observable).
 * They implement the manager's seams (apps/server/src/models/runtime.ts), nothing more.
 */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigChange, InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import type { PatchResult } from '@inferscope/core/scheduler';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import type { Scheduler } from '@inferscope/core/scheduler';
import type { ModelRuntime, SchedulerFactoryOptions, ConfigProblem } from '../../apps/server/src/models/runtime.ts';

export class FakeScheduler implements Scheduler {
  inflight = 0;
  stopped = false;
  /** the change list of every live change that reached the scheduler */
  changes: ConfigChange[][] = [];
  counts: [string, number][] = [];
  private gates: (() => void)[] = [];
  /** when true, requests wait until release() */
  hold = false;
  constructor(readonly opts: SchedulerFactoryOptions) {}
  async start(): Promise<void> {}
  private submitted = 0;
  submit(req: SchedulerRequest<InferPayload>, settle: (err: Error | null, result?: InferResult) => void): string {
    this.enqueue(req).then((r) => settle(null, r), (e: Error) => settle(e));
    return `fake-${++this.submitted}`;
  }
  /** the fake never holds a request in a queue it could take it out of */
  cancel(): boolean {
    return false;
  }
  async enqueue(req: SchedulerRequest<InferPayload>): Promise<InferResult> {
    if (this.stopped) throw new Error('unavailable');
    this.inflight++;
    try {
      if (this.hold) await new Promise<void>((r) => this.gates.push(r));
      const inst = { name: 'i0', group: 'g', kind: 'KIND_CPU', device: 'cpu', index: 0 };
      return (await this.opts.executor.execute(inst, [req]))[0];
    } finally {
      this.inflight--;
    }
  }
  release(): void {
    for (const g of this.gates.splice(0)) g();
  }
  applyLiveChange(next: PatchResult): void {
    this.changes.push(next.changes);
  }
  setInstanceCount(group: string, count: number): void {
    this.counts.push([group, count]);
  }
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.inflight > 0) await new Promise((r) => setImmediate(r));
  }
  snapshot() {
    return { instances: [{ name: `${this.opts.model}_0_0`, group: `${this.opts.model}_0`, kind: 'KIND_CPU', device: 'cpu', state: 'idle' as const }] };
  }
}

export function fakeRuntime(): ModelRuntime & { schedulers: FakeScheduler[]; unloaded: string[] } {
  const schedulers: FakeScheduler[] = [];
  const unloaded: string[] = [];
  return {
    schedulers,
    unloaded,
    config: {
      parse(text: string): ModelConfig {
        try {
          return JSON.parse(text) as ModelConfig;
        } catch (err) {
          throw Object.assign(new Error(`bad config: ${(err as Error).message}`), { line: 2, column: 7 });
        }
      },
      normalize(cfg, { modelName }) {
        return {
          ...cfg,
          name: cfg.name ?? modelName,
          instance_group: cfg.instance_group ?? [{ name: `${modelName}_0`, kind: 'KIND_CPU', count: 1 }],
        };
      },
      validate(cfg, { folderName }): ConfigProblem[] {
        if (cfg.name !== folderName) return [{ message: `unexpected name '${cfg.name}' for model in folder '${folderName}'` }];
        const max = cfg.max_batch_size ?? 0;
        for (const p of cfg.dynamic_batching?.preferred_batch_size ?? []) {
          if (p > max) return [{ message: `dynamic batching preferred size must be <= max batch size for ${cfg.name}` }];
        }
        return [];
      },
      print: (cfg) => JSON.stringify(cfg, null, 2) + '\n',
    },
    backends: {
      async autoComplete(_file, cfg) {
        return cfg.input ? cfg : { ...cfg, input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [4] }], output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [4] }] };
      },
      async load(ctx) {
        if (ctx.config.parameters?.fail) throw new Error(`backend refused: ${ctx.config.parameters.fail.string_value}`);
        return {
          notes: [],
          executor: { execute: async (_i, batch) => batch.map((r) => r.payload.inputs) },
          unload: async () => { unloaded.push(`${ctx.model}:${ctx.version}`); },
        };
      },
    },
    createScheduler(opts) {
      const s = new FakeScheduler(opts);
      schedulers.push(s);
      return s;
    },
  };
}

/** Writes a repository: { 'model/config.pbtxt': text, 'model/1/model.onnx': '' ... } */
export async function makeRepository(files: Record<string, string>, root?: string): Promise<string> {
  const dir = root ?? (await mkdtemp(join(tmpdir(), 'inferscope-repo-')));
  for (const [rel, text] of Object.entries(files)) {
    const full = join(dir, rel);
    await mkdir(join(full, '..'), { recursive: true });
    if (rel.endsWith('/')) await mkdir(full, { recursive: true });
    else await writeFile(full, text);
  }
  return dir;
}

export const cfg = (o: Record<string, unknown>): string => JSON.stringify(o);
