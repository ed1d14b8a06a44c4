/** The startLoad message the load panel sends: aimed at the model version picked in the UI, like every control. */
import type { ControlMessage } from '@inferscope/core';

export interface LoadForm {
  scenario: string;
  seed: number;
  record: boolean;
  duration: number;
  rate: number;
  /** 0 = open loop at `rate`; more = that many closed-loop clients */
  concurrency: number;
}

export function startLoadMessage(target: { name: string; version: string }, form: LoadForm): ControlMessage {
  return {
    action: 'startLoad', model: target.name, version: target.version,
    scenario: form.scenario, seed: form.seed, record: form.record, duration: form.duration,
    ...(form.concurrency > 0 ? { concurrency: form.concurrency } : { rate: form.rate }),
  };
}
