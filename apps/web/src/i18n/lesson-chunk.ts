/**
 * Lesson 17 "long prompts stall everyone" (teach/ChunkDemo.tsx, runs in teach/chunk-run.ts) in both
 * languages: its lesson text and the demo's labels and verdict sentences, chosen by the figures.
 */
import { GEN_DEMO_EN, GEN_DEMO_ZH, type GenDemoText } from './lesson-rebuild';

export const CHUNK_EN = {
  title: 'Long prompts stall everyone: chunked prefill',
  claim: 'A long prompt read in one step stalls every sequence decoding beside it; enable_chunked_context feeds it in chunks within max_num_tokens, and the decoders keep their pace.',
  intro: [
    'Before its first token a request\'s whole prompt is read (prefill). A step\'s time grows with the tokens it feeds: a decode feeds one token per sequence, a 200-token prompt feeds 200 at once.',
    'Without chunked context (TensorRT-LLM\'s enable_chunked_context; vLLM\'s enable_chunked_prefill) the prompt joins whole, so it must fit one step\'s max_num_tokens (or it is refused), and the step that reads it holds up every decoder. With it, each step gives the prompt what the token budget leaves beside the decodes.',
    'The picture is core\'s simulator with the server\'s scheduler: six sequences decoding 64-token answers, and a 200-token prompt arriving after ten of their steps, with chunking off and on at a few max_num_tokens.',
  ],
  watch: [
    'The timeline: the long prompt\'s prefill is one cell without chunking and several with it, each beside the decoders\' cells.',
    'The decoders\' longest gap between two tokens: the stall the long prompt causes.',
    'The price: the long prompt\'s own first token comes later when it is chunked; and without chunking, a max_num_tokens under the prompt refuses it.',
  ],
  caption: 'The token timeline of the run the knobs pick; the table: chunking off and on at each max_num_tokens, from the same arrivals.',
};

export const CHUNK_ZH = {
  title: '长提示会拖住所有人：分块预填充',
  claim: '长提示在一步里读完，会拖住旁边每个正在解码的序列；enable_chunked_context 按 max_num_tokens 把它分块读入，解码的序列就能保持节奏。',
  intro: [
    '请求产生第一个令牌之前，要先读完整个提示（预填充）。一步的时间随它输入的令牌数增长：解码时每个序列只输入一个令牌，一个 200 令牌的提示则一次输入 200 个。',
    '不开分块上下文（TensorRT-LLM 的 enable_chunked_context；vLLM 的 enable_chunked_prefill）时，提示只能整段加入，所以必须装得进一步的 max_num_tokens（否则被拒绝），读它的那一步会拖住每个解码中的序列。开启后，每一步把令牌预算中解码剩下的部分分给这个提示。',
    '下面的图由核心模拟器运行服务器的调度器得到：六个序列正在解码 64 个令牌的回答，它们解码十步之后到来一个 200 令牌的提示；分块关闭和开启，各在几个 max_num_tokens 下运行。',
  ],
  watch: [
    '时间线：不分块时长提示的预填充只占一个格子，分块后占好几个，每个都和解码的格子并排。',
    '解码序列两个令牌之间最长的间隔：这就是长提示造成的停顿。',
    '代价：分块后长提示自己的首令牌来得更晚；不分块时，max_num_tokens 小于提示长度就会拒绝它。',
  ],
  caption: '旋钮所选运行的令牌时间线；表格：同样到达序列在每个 max_num_tokens 下分块关闭和开启的结果。',
};

export interface ChunkVerdict {
  chunked: boolean;
  budget: number;
  /** the shown run refused the long prompt (no chunking, max_num_tokens under it) */
  refused: boolean;
  /** the shown run is chunked, yet its max_num_tokens took the prompt in one step */
  whole: boolean;
  prompt: number;
  stallOff: string;
  stallOn: string;
  gapP50: string;
  longTtftOff: string;
  longTtftOn: string;
  /** the chunked run compared: its max_num_tokens and the steps it fed the prompt in */
  chunks: number;
  onBudget: number;
}

export interface ChunkDemoText extends GenDemoText {
  chunked: string;
  budget: string;
  onOff: { on: string; off: string };
  /** the strip of step durations under the timeline */
  stepTime: (longest: string) => string;
  table: { chunked: string; budget: string; stall: string; gap50: string; longTtft: string; chunks: string };
  refused: string;
  verdict: (v: ChunkVerdict, holds: boolean) => string;
}

export const CHUNK_DEMO_EN: ChunkDemoText = {
  ...GEN_DEMO_EN,
  chunked: 'enable_chunked_context',
  budget: 'max_num_tokens',
  onOff: { on: 'on', off: 'off' },
  stepTime: (longest) => `time of each step (longest ${longest})`,
  table: { chunked: 'chunked', budget: 'max_num_tokens', stall: 'decoders\' longest gap', gap50: 'gap p50', longTtft: 'long prompt TTFT', chunks: 'prefill steps' },
  refused: 'refused',
  verdict: (v, holds) => {
    const head = v.refused
      ? `Without chunking, max_num_tokens ${v.budget} refuses the ${v.prompt}-token prompt. `
      : v.whole ? `At max_num_tokens ${v.budget} the ${v.prompt}-token prompt fits one step, so chunking does not split it. ` : '';
    return head + (holds
      ? `Without chunking the decoders wait ${v.stallOff} for a token while the prompt is read (usually ${v.gapP50}); chunked at max_num_tokens ${v.onBudget} (${v.chunks} steps), ${v.stallOn} at most. The long prompt's own first token: ${v.longTtftOff} whole, ${v.longTtftOn} chunked.`
      : `Decoders' longest gap: ${v.stallOff} without chunking, ${v.stallOn} chunked at ${v.onBudget} (${v.chunks} steps). These runs do not show chunking shortening the stall.`);
  },
};

export const CHUNK_DEMO_ZH: ChunkDemoText = {
  ...GEN_DEMO_ZH,
  chunked: 'enable_chunked_context',
  budget: 'max_num_tokens',
  onOff: { on: '开启', off: '关闭' },
  stepTime: (longest) => `每一步的用时（最长 ${longest}）`,
  table: { chunked: '分块', budget: 'max_num_tokens', stall: '解码最长间隔', gap50: '间隔 p50', longTtft: '长提示首令牌', chunks: '预填充步数' },
  refused: '被拒绝',
  verdict: (v, holds) => {
    const head = v.refused
      ? `不分块时，max_num_tokens 为 ${v.budget} 会拒绝 ${v.prompt} 令牌的提示。`
      : v.whole ? `max_num_tokens 为 ${v.budget} 时，${v.prompt} 令牌的提示一步就装得下，分块不会拆开它。` : '';
    return head + (holds
      ? `不分块时，读提示的那一步让解码序列两个令牌之间等了 ${v.stallOff}（平时间隔 ${v.gapP50}）；按 max_num_tokens ${v.onBudget} 分成 ${v.chunks} 步读，最多只等 ${v.stallOn}。长提示自己的首令牌：整段读 ${v.longTtftOff}，分块读 ${v.longTtftOn}。`
      : `解码序列的最长间隔：不分块 ${v.stallOff}，按 ${v.onBudget} 分块（${v.chunks} 步）${v.stallOn}。这几次运行没有显示出分块缩短了停顿。`);
  },
};
