/**
 * The "a conversation keeps its seat" lesson (teach/SeatsDemo.tsx, runs in teach/seats-run.ts) in both
 * languages: its lesson text (joined into lessons-en.ts / lessons-zh.ts) and the demo's labels and
 * verdict sentences, chosen by the figures on screen.
 */

export const SEATS_EN = {
  title: 'A conversation keeps its seat: stateful models and the sequence batcher',
  claim: 'A stateful model must see every request of a conversation on the same slot; a quiet conversation keeps its seat until max_sequence_idle_microseconds, and the backlog waits for it.',
  intro: [
    'Some models remember: a speech recognizer streaming audio, a chat session, an RNN carrying its hidden state. Each request of a conversation (a correlation id, from START to END) needs the state the previous one left, so the sequence batcher binds the conversation to one slot of one instance and keeps it there until END. Its state lives in that slot.',
    'An instance has max_batch_size slots. A conversation that STARTs when every slot is held waits in the backlog, with all its requests, until a slot is released: by an END, or by the idle timeout when a conversation goes quiet without saying goodbye.',
    'The picture is core\'s simulator running the server\'s sequence batcher: a model with two slots, eight conversations of four requests 3 ms apart, starting 1.5 ms apart; conversation 1 goes quiet after its fourth request and never sends END.',
  ],
  watch: [
    'Each bar is a conversation in a slot: its id stays on one slot from START to END, however many batches it takes.',
    'Conversation 1 holds slot #0 after its last request until the idle timeout: with 5 ms the backlog gets the seat back early; with 20 or 80 ms every other conversation squeezes through slot #1.',
    'The direct strategy keeps each slot at a fixed batch position: while slot #0 sits quiet, every batch of slot #1 carries a null request for it. The oldest strategy forms batches from the oldest ready conversations and pads nothing.',
  ],
  caption: 'Slots over time (a bar per conversation holding the slot) and the backlog waiting; the table: every strategy and idle timeout, from the same conversations.',
};

export const SEATS_ZH = {
  title: '对话要坐稳自己的座位：有状态模型与序列批处理器',
  claim: '有状态模型必须让同一段对话的每个请求都落在同一个槽位上；沉默的对话会一直占着座位，直到 max_sequence_idle_microseconds 到期，等待队列只能等它。',
  intro: [
    '有些模型是有记忆的：流式语音识别、聊天会话、带隐藏状态的 RNN。一段对话（一个关联 ID，从 START 到 END）的每个请求都需要上一个请求留下的状态，所以序列批处理器把这段对话绑定在某个实例的一个槽位上，直到 END 才放开。它的状态就存放在这个槽位里。',
    '每个实例有 max_batch_size 个槽位。所有槽位都被占着的时候开始的对话，连同它的全部请求，都要在等待队列里排队，直到有槽位被释放：要么对方发来 END，要么一段不告而别的对话沉默到了空闲超时。',
    '下面的图由核心模拟器运行服务器同一个序列批处理器得到：模型有两个槽位，八段对话，每段四个请求、间隔 3 毫秒，相邻对话间隔 1.5 毫秒开始；第 1 段对话发完第四个请求后就沉默了，再也没有发送 END。',
  ],
  watch: [
    '每根横条是一段对话占着一个槽位：它的 ID 从 START 到 END 都停在同一个槽位上，不管跑了多少批。',
    '第 1 段对话发完最后一个请求后仍占着 0 号槽位，直到空闲超时：超时设为 5 毫秒，座位很快还给等待队列；设为 20 或 80 毫秒，其余对话只能挤过 1 号槽位。',
    'direct 策略让每个槽位固定在批次里的一个位置：0 号槽位沉默时，1 号槽位的每一批都要为它带一个空请求。oldest 策略从最早就绪的对话组批，不需要填充。',
  ],
  caption: '槽位随时间的占用（每根横条是一段对话占着槽位）和等待队列；表格：同样的对话在每种策略和空闲超时下的结果。',
};

export interface SeatsVerdict {
  /** the run shown */
  idle: string;
  strategy: string;
  /** how long the quiet conversation kept its seat after its last request */
  held: string;
  /** the backlog's total wait now, and with the shortest and the longest timeout of the same strategy */
  wait: string;
  waitShort: string;
  waitLong: string;
  short: string;
  /** null requests padding the quiet slot: direct and oldest, at the timeout shown */
  nullsDirect: number;
  nullsOldest: number;
}

export interface SeatsDemoText {
  strategy: string;
  idle: string;
  slot: (name: string) => string;
  backlog: string;
  axis: string;
  quiet: (held: string) => string;
  table: { strategy: string; idle: string; wait: string; done: string; nulls: string; batches: string };
  /** the folded table's summary */
  rows: string;
  /** the verdict from the rows (claimHolds('seats')); the plain account when the rows do not bear the claim out */
  verdict: (v: SeatsVerdict, holds: boolean) => string;
}

export const SEATS_DEMO_EN: SeatsDemoText = {
  strategy: 'Strategy',
  idle: 'max_sequence_idle_microseconds',
  slot: (n) => `slot ${n}`,
  backlog: 'backlog',
  axis: 'simulated time',
  quiet: (held) => `quiet, still seated ${held}`,
  rows: 'Every run (the rows the verdict is computed from)',
  table: { strategy: 'strategy', idle: 'idle timeout', wait: 'backlog wait (sum)', done: 'last answer', nulls: 'null requests', batches: 'batches' },
  verdict: (v, holds) => holds
    ? `${v.strategy}, idle ${v.idle}: conversation 1 kept its seat ${v.held} after its last request; the backlog waited ${v.wait} in all (${v.waitShort} at ${v.short}, ${v.waitLong} at the longest). Direct padded its quiet slot with ${v.nullsDirect} null requests, oldest with ${v.nullsOldest}.`
    : `At ${v.idle} (${v.strategy}) the backlog waited ${v.wait} in all (${v.waitShort} at ${v.short}, ${v.waitLong} at the longest timeout); direct padded ${v.nullsDirect} null requests, oldest ${v.nullsOldest}. These runs do not show the idle seat costing the backlog.`,
};

export const SEATS_DEMO_ZH: SeatsDemoText = {
  strategy: '策略',
  idle: 'max_sequence_idle_microseconds',
  slot: (n) => `槽位 ${n}`,
  backlog: '等待队列',
  axis: '模拟时间',
  quiet: (held) => `沉默，仍占座 ${held}`,
  rows: '每次运行（结论由这些行算出）',
  table: { strategy: '策略', idle: '空闲超时', wait: '等待队列总等待', done: '最后一个应答', nulls: '空请求', batches: '批次' },
  verdict: (v, holds) => holds
    ? `空闲超时 ${v.idle}（${v.strategy}）时，第 1 段对话在最后一个请求之后又占座 ${v.held}，等待队列总共等了 ${v.wait}：超时 ${v.short} 时是 ${v.waitShort}，最长超时时是 ${v.waitLong}。它的槽位沉默期间，direct 往批次里填了 ${v.nullsDirect} 个空请求；oldest 填了 ${v.nullsOldest} 个。`
    : `空闲超时 ${v.idle}（${v.strategy}）时，等待队列总共等了 ${v.wait}（超时 ${v.short} 时 ${v.waitShort}，最长超时时 ${v.waitLong}）；direct 填了 ${v.nullsDirect} 个空请求，oldest ${v.nullsOldest} 个。这几次运行没有显示出沉默的座位拖累等待队列。`,
};
