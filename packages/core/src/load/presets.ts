/**
 * Built-in scenarios with names a class understands. Rates are requests per second; `--rate` rescales a
 * preset so its busiest phase runs at the given rate, `--duration` stretches it.
 */
import type { Scenario } from './scenario';

export const PRESETS: readonly Scenario[] = [
  {
    name: 'steady',
    description: 'A metronome: evenly spaced requests at 100/s. The easiest load to batch.',
    phases: [{ type: 'constant', duration_s: 10, rate: 100 }],
  },
  {
    name: 'poisson',
    description: 'Independent clients at 100/s on average (random gaps). Real traffic looks like this.',
    phases: [{ type: 'poisson', duration_s: 10, rate: 100 }],
  },
  {
    name: 'burst',
    description: 'Quiet background (20/s) with 50 requests landing within 2 ms every 2 s: bursty clients.',
    phases: [{ type: 'burst', duration_s: 10, rate: 20, burst_size: 50, burst_every_s: 2, burst_spread_us: 2000 }],
  },
  {
    name: 'ramp',
    description: 'Load climbs from 10/s to 400/s over 20 s: watch batches grow as the queue fills.',
    phases: [{ type: 'ramp', duration_s: 20, from: 10, to: 400 }],
  },
  {
    name: 'overload',
    description: 'More than the default simulated model can serve even in full batches (4000/s): queues grow, latency explodes, queue limits reject.',
    phases: [{ type: 'poisson', duration_s: 10, rate: 4000 }],
  },
  {
    name: 'lunch-rush',
    description: 'Quiet morning, a rush that builds to 300/s, holds, then fades back.',
    phases: [
      { type: 'poisson', duration_s: 5, rate: 20, label: 'morning' },
      { type: 'ramp', duration_s: 5, from: 20, to: 300, label: 'people arrive' },
      { type: 'poisson', duration_s: 10, rate: 300, label: 'rush' },
      { type: 'ramp', duration_s: 5, from: 300, to: 20, label: 'people leave' },
      { type: 'poisson', duration_s: 5, rate: 20, label: 'afternoon' },
    ],
  },
  {
    name: 'mixed-priorities',
    description: '200/s where 20% are urgent (priority 1) and 80% are batch jobs (priority 2).',
    priorities: [
      { value: 1, weight: 0.2 },
      { value: 2, weight: 0.8 },
    ],
    phases: [{ type: 'poisson', duration_s: 10, rate: 200 }],
  },
  {
    name: 'trickle',
    description: 'A steady trickle (2/s): batching cannot help, the delay only adds latency.',
    phases: [{ type: 'poisson', duration_s: 30, rate: 2 }],
  },
  {
    name: 'closed-loop',
    description: '8 clients that each send their next request as soon as the previous one is answered.',
    phases: [{ type: 'closed', duration_s: 10, concurrency: 8, think_us: 0 }],
  },
  {
    name: 'variable-length',
    description: 'Text-like inputs of 8..128 tokens padded to buckets of 32: only equal lengths can share a batch.',
    shapes: { type: 'length', dims: [-1], length: { type: 'uniform', min: 8, max: 128 }, bucket: 32 },
    phases: [{ type: 'poisson', duration_s: 10, rate: 200 }],
  },
  {
    name: 'big-requests',
    description: 'Clients sending 1, 4 or 8 samples per request: max_batch_size counts samples, not requests.',
    batch_sizes: [
      { value: 1, weight: 0.6 },
      { value: 4, weight: 0.3 },
      { value: 8, weight: 0.1 },
    ],
    phases: [{ type: 'poisson', duration_s: 10, rate: 100 }],
  },
];

export function findPreset(name: string): Scenario | undefined {
  return PRESETS.find((p) => p.name === name);
}
