/**
 * What each experiment table claims, as a test of its own figures: the page picks the claim's sentence only
 * when its rows bear it out, and says so plainly when they do not (a calibration the teacher chose can make
 * a host where a claim fails). The unit tests assert the same predicates on the shipped calibration and on
 * slower and noisier ones, so a lesson whose claim stops holding fails the suite before it reaches a class.
 */
export type Figures = Readonly<Record<string, number>>;

export const CLAIMS: Readonly<Record<string, (f: Figures) => boolean>> = {
  // batching serves far more than one request at a time can
  'on-off': (f) => f.ratio! >= 1.5,
  // a delay gathers bigger batches, spends less instance time per request, and costs latency
  delay: (f) => f.batchRatio! >= 1.5 && f.busyRatio! < 0.9 && f.p50Delay2! > f.p50Delay0!,
  // under overload delay 0 already batches, and the delay hardly changes throughput
  overload: (f) => f.batch0! > 2 && Math.abs(f.ratio! - 1) < 0.1,
  // memory-bound MLP gains from batching, compute-bound CNN hardly does
  bound: (f) => f.mlpGain! >= 2 && f.cnnGain! <= 1.3,
  // a second instance helps, past the cores more do not
  instances: (f) => f.two! > 1.5 && f.four! < 1.15,
  // PyTorch through its stub costs more instance time than onnxruntime
  'backends-light': (f) => f.server! > 1,
  'backends-heavy': (f) => f.server! > 1,
  // throughput stops at a limit while p99 climbs
  sweep: (f) => f.lastP99! > 10 * f.firstP99! && f.lastThroughputGrowth! < 1.3,
  // a quiet conversation's seat costs the backlog (longest idle timeout waits more), direct pads it, oldest does not
  seats: (f) => f.waitLong! > f.waitShort! && f.nullsDirect! > 0 && f.nullsOldest! === 0,
  // without the limiter each model's batches slow (they share the accelerator); with it they never overlap, and the lower weight gets more turns
  accelerator: (f) => f.slowVision! >= 1.5 && f.slowSpeech! >= 1.5 && f.overlapOn! === 0 && f.turnsVision! > f.turnsSpeech!,
  // half the inputs repeated: about half hit and the compute falls with them; unique inputs never hit and cost the same compute
  cache: (f) => f.hitRate! >= 0.4 && f.computeRepeated! <= 0.6 && f.uniqueHits! === 0 && Math.abs(f.computeUnique! - 1) < 0.02,
  // the same tokens in clearly less time, the first token sooner, a newcomer's median first token within two steps
  rebuild: (f) => f.tokensContinuous === f.tokensStatic && f.spanContinuous! < 0.8 * f.spanStatic! && f.ttftP99Continuous! < f.ttftP99Static! && f.ttftStepsContinuous! <= 2,
  // a smaller KV budget: throughput falls under both policies, guaranteed_no_evict queues (TTFT) without preempting, max_utilization preempts
  kvlimit: (f) => f.tpsSmallNoEvict! < 0.8 * f.tpsBig! && f.tpsSmallMaxUtil! < f.tpsBig! && f.ttftP99SmallNoEvict! > 1.5 * f.ttftP99Big! && f.preemptSmallMaxUtil! > 0 && f.preemptNoEvict === 0,
  // the whole prompt in one step stalls the decoders; in chunks it does not
  chunked: (f) => f.chunks! > 1 && f.stallOff! > 1.5 * f.stallOn!,
};

/** Whether the table's figures bear out its claim (a table without one claims nothing). */
export function claimHolds(id: string, figures: Figures): boolean {
  return CLAIMS[id]?.(figures) ?? true;
}
