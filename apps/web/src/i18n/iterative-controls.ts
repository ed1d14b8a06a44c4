/** Text of the Live Controls of an iterative (continuous-batching) model, en and zh. Field names stay as in config.pbtxt. */
import type { IterativeKnobField } from '@inferscope/core/live-config';

export const ITERATIVE_CONTROLS_EN = {
  heading: 'Continuous batching (applied at the next step)',
  /** what each knob does, beside its config name */
  knob: {
    max_num_sequences: 'sequences in one step at most',
    max_num_tokens: 'new tokens in one step (prefill + decode)',
    max_tokens_in_paged_kv_cache: 'KV cache budget, in tokens',
    enable_chunked_context: 'prefill a long prompt over several steps',
    batch_scheduler_policy: 'when KV blocks run out: wait, or preempt the newest',
  } satisfies Record<IterativeKnobField, string>,
  unset: 'default',
  caption:
    'Slots, token budget and chunked prefill change in place. The policy and the KV budget size the KV cache: a new one takes over, the running sequences recompute their text (shown as preemptions) and none is lost.',
  /** teaching mode: the model is served in the page, not by a server */
  teaching:
    "Teaching mode: this page serves tiny_lm_generate with the server's step scheduler on the simulated clock, under the lesson's own traffic, round after round. A change is checked and applied as the server applies it, at the next step.",
};

export const ITERATIVE_CONTROLS_ZH: typeof ITERATIVE_CONTROLS_EN = {
  heading: '连续批处理（下一步生效）',
  knob: {
    max_num_sequences: '每步最多的序列数',
    max_num_tokens: '每步的新词元数（预填充 + 解码）',
    max_tokens_in_paged_kv_cache: 'KV 缓存预算（词元数）',
    enable_chunked_context: '长提示词分多步预填充',
    batch_scheduler_policy: 'KV 块用尽时：等待，或抢占最新的序列',
  },
  unset: '默认',
  caption:
    '序列数、词元预算和分块预填充原地生效。策略和 KV 预算决定 KV 缓存的大小：换上新的缓存，正在运行的序列重新计算其文本（显示为抢占），不丢失任何序列。',
  teaching:
    '教学模式：本页面在模拟时钟上用服务器的逐步调度器运行 tiny_lm_generate，流量是本课自己的请求，一轮接一轮。修改的检查和生效方式与服务器相同，在下一步生效。',
};
