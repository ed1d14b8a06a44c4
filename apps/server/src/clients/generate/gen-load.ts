/**
 * Sends a list of generations under a closed loop (`concurrency` clients, each sending its next as its
 * last one ends: genai-perf's --concurrency) or an open loop (a request rate, constant or Poisson gaps:
 * --request-rate), and gives back every request's record in send order. Every ask is sent exactly once;
 * the run ends when every answer has ended.
 */
import { Rng } from '@inferscope/core/load';
import type { GenAsk } from './gen-workload';
import type { GenRecord, GenSend } from './gen-stream';

export type GenLoadMode =
  | { kind: 'concurrency'; concurrency: number }
  | { kind: 'rate'; rate: number; distribution: 'constant' | 'poisson'; seed: number };

export async function runGenLoad(send: GenSend, asks: readonly GenAsk[], mode: GenLoadMode): Promise<GenRecord[]> {
  const records: GenRecord[] = new Array(asks.length);
  if (mode.kind === 'concurrency') {
    let next = 0;
    const client = async () => {
      while (next < asks.length) {
        const i = next++;
        records[i] = await send(asks[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(mode.concurrency, asks.length) }, client));
    return records;
  }
  const rng = new Rng(mode.seed);
  const start = performance.now();
  let atMs = 0;
  const sends: Promise<void>[] = [];
  for (let i = 0; i < asks.length; i++) {
    const wait = start + atMs - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    sends.push(send(asks[i]!).then((r) => void (records[i] = r)));
    atMs += mode.distribution === 'poisson' ? rng.expGapUs(mode.rate) / 1000 : 1000 / mode.rate;
  }
  await Promise.all(sends);
  return records;
}
