/**
 * The autotuning lesson (teach/AutotuneDemo.tsx) in both languages: its lesson text (joined into
 * lessons-en.ts / lessons-zh.ts, whose LessonText type checks its shape there) and the demo's labels.
 */

export const AUTOTUNE_EN = {
  title: 'Autotuning: one delay is not right all day',
  claim: 'No single max_queue_delay is right all day: the autotuner picks, phase by phase, the biggest batches the p99 target allows.',
  intro: [
    'Traffic is uneven: a quiet morning at 300 requests/s, a rush at 9000/s, a quiet evening at 300/s. A static max_queue_delay is tuned for one of them: short, and the rush runs in small, costly batches; long, and quiet requests wait the whole delay for company that never comes.',
    'The autotuner (declared in the config as parameters { key: "autotune_p99_ms" }) watches p99, the rate and the batches every second and moves the delay toward the largest batches whose p99 stays within the target, and back when the rate falls.',
    'The picture is the simulator on the MLP with one instance and its calibration: the same seeded day, once with the static delay you pick, once autotuned.',
  ],
  watch: [
    'With a short delay the quiet phases are fast but the rush pays the most instance time per request; with 8 ms the rush is cheap but every quiet request waits about 8 ms.',
    'Autotuned at 3 ms, every phase stays under the target line and the day costs less compute per request than any static delay that also stays under it: the rush takes a longer delay than the quiet phases can.',
    'At 1.2 ms no static delay holds the rush with one instance; the tuner adds a second one for the rush (the host has two cores) and takes it back after.',
  ],
  caption: 'Bars: p99 per phase (the line is the target) and instance time per request, static delay vs autotuned.',
};

export const AUTOTUNE_ZH = {
  title: '自动调优：没有哪个延迟能管一整天',
  claim: '没有哪一个 max_queue_delay 能管一整天：自动调优器在每个时段里，挑出 p99 目标所允许的最大批次。',
  intro: [
    '流量从来不均匀：上午清闲，每秒 300 个请求；中午高峰，每秒 9000 个；晚上又回到每秒 300 个。静态的 max_queue_delay 只能照顾其中一段：设得短，高峰时批次又小又费算力；设得长，清闲时每个请求都要白等满整个延迟，等一个不会来的同伴。',
    '自动调优器写在模型配置里（参数 autotune_p99_ms，单位毫秒），每秒看一次 p99、请求速率和批次大小，把延迟往「p99 不超目标的前提下批次最大」的方向调；流量一降，再调回来。',
    '下面的图是模拟器跑出来的：MLP 模型、一个实例、它的校准数据；同一天、同样的随机种子，一次用你选的静态延迟，一次交给自动调优。',
  ],
  watch: [
    '延迟短：清闲时段很快，但高峰时每个请求占用的实例时间最多；延迟 8 毫秒：高峰很省，可清闲时每个请求都要多等约 8 毫秒。',
    '目标设为 3 毫秒时，自动调优让每个时段都压在目标线以下，而且全天每个请求的计算时间比任何同样达标的静态延迟都少：高峰能承受的延迟比清闲时段长。',
    '目标设为 1.2 毫秒时，只有一个实例的话，没有哪个静态延迟扛得住高峰；调优器在高峰时加开第二个实例（主机有两个核），高峰过后再收回。',
  ],
  caption: '柱子：各时段的 p99（横线是目标）和每个请求的实例时间，静态延迟对比自动调优。',
};

export interface AutotuneDemoText {
  staticDelay: string;
  target: string;
  fixed: (delay: string) => string;
  tuned: (target: string) => string;
  phases: [string, string, string];
  p99: string;
  compute: string;
  targetLine: (target: string) => string;
  dayCompute: string;
  computing: string;
  /** the takeaway for the numbers on screen, chosen by them (the tuner's claim only when the bars bear it out) */
  verdict: (v: { fixedMisses: number; tunedMisses: number; fixed: string; tuned: string }) => string;
  takeaway: (v: { fixedMisses: number; tunedMisses: number; tunedCheaper: boolean; tunedMissed: string }) => string;
}

export const AUTOTUNE_DEMO_EN: AutotuneDemoText = {
  staticDelay: 'Static delay',
  target: 'p99 target',
  fixed: (d) => `static ${d}`,
  tuned: (t) => `autotuned to ${t}`,
  phases: ['quiet 300/s', 'rush 9000/s', 'quiet 300/s'],
  p99: 'p99 latency',
  compute: 'instance time per request',
  targetLine: (t) => `target ${t}`,
  dayCompute: 'whole day',
  computing: 'simulating…',
  verdict: (v) => `The static delay misses the target in ${v.fixedMisses} of 3 phases, the autotuner in ${v.tunedMisses}; per request the day costs ${v.fixed} static vs ${v.tuned} autotuned.`,
  takeaway: (v) => v.tunedMisses > 0
    ? `Here the autotuner misses the target too, in ${v.tunedMissed}: it aims its delay at the target from predictions, and what the phase then measured is a little over it.`
    : v.fixedMisses > 0 || v.tunedCheaper
      ? 'No single delay is right all day; the autotuner holds the target in every phase, with the biggest batches the target allows.'
      : 'This static delay also holds the target all day and costs less per request: the autotuner pays for the margin it keeps below the target.',
};

export const AUTOTUNE_DEMO_ZH: AutotuneDemoText = {
  staticDelay: '静态延迟',
  target: 'p99 目标',
  fixed: (d) => `静态 ${d}`,
  tuned: (t) => `自动调优（目标 ${t}）`,
  phases: ['清闲 300/秒', '高峰 9000/秒', '清闲 300/秒'],
  p99: 'p99 延迟',
  compute: '每个请求的实例时间',
  targetLine: (t) => `目标 ${t}`,
  dayCompute: '全天',
  computing: '模拟中…',
  verdict: (v) => `静态延迟在 3 个时段中有 ${v.fixedMisses} 个超出目标，自动调优有 ${v.tunedMisses} 个；全天平均每个请求的计算时间：静态 ${v.fixed}，自动调优 ${v.tuned}。`,
  takeaway: (v) => v.tunedMisses > 0
    ? `这里自动调优也超出了目标（${v.tunedMissed}）：它按预测把延迟对准目标，而该时段实测的 p99 略高于目标。`
    : v.fixedMisses > 0 || v.tunedCheaper
      ? '没有哪个延迟能管一整天；自动调优在每个时段都守住目标，并用目标所允许的最大批次。'
      : '这个静态延迟同样全天守住目标，且每个请求花费更少：自动调优为它在目标之下留的余量付出了代价。',
};
