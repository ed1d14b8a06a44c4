/**
 * The streaming lesson (teach/StreamingDemo.tsx) in both languages: its lesson text (joined into
 * lessons-en.ts / lessons-zh.ts, whose LessonText type checks its shape there: no import back, no circle)
 * and the demo's own labels.
 */

export const STREAMING_EN = {
  title: 'Streaming: a model that answers many times',
  claim: 'A decoupled model sends its answer piece by piece: the first token arrives after one step, long before the whole text, and the instance is free again as soon as execute() returns.',
  intro: [
    'An LLM-style model does not answer once: it sends one token per step. Triton calls such a model decoupled (model_transaction_policy { decoupled: true }): execute() hands each request a response sender and returns, and the model sends 0..n responses from its own threads, the last one flagged final.',
    'What a user feels is the time to the first token (TTFT); the total time grows with the length of the text. For batching it means the scheduler only sees requests arrive: once execute() has returned, the instance takes the next batch while earlier streams are still sending.',
    'The bundled token_streamer model writes one word every 60 ms. Press Stream to ask it for a text over generate_stream (server-sent events) and watch the words arrive one by one.',
  ],
  watch: [
    'Time to first token stays near one step (about 60 ms) whatever the length; the total time is about one step per token.',
    'Four clients at once: every stream starts at once, because the one instance is not held while the tokens flow.',
    'In the statistics (/v2/models/token_streamer/stats) a stream counts once as a request, and each response by its index in response_stats.',
  ],
  caption: 'Each tick is one token, placed at the time it arrived.',
};

export const STREAMING_ZH = {
  title: '流式输出：一个请求，多次回答',
  claim: '解耦（decoupled）模型把答案一段一段地发出来：第一个词只要一步就到，远早于整段文字写完；而且 execute() 一返回，实例就空出来了。',
  intro: [
    '像大语言模型这样的模型不会一次性作答，而是每一步吐出一个词。Triton 把这类模型叫作解耦模型（model_transaction_policy { decoupled: true }）：execute() 给每个请求一个 response sender 后就返回，之后模型在自己的线程里发出任意多个响应，最后一个带上 final 标记。',
    '用户真正感受到的是首词时间（TTFT，time to first token）；总时间则随文字长度增长。对批处理来说，调度器只看得到请求何时到达：execute() 一返回，实例就去接下一批请求，前面的流还在继续往外发词。',
    '仓库里自带的 token_streamer 模型每 60 毫秒写出一个词。点「开始流式」，通过 generate_stream（服务器推送事件，SSE）向它要一段文字，看词一个一个地冒出来。',
  ],
  watch: [
    '不管文字多长，首词时间都在一步左右（约 60 毫秒）；总时间大约是「词数 × 每步时间」。',
    '四个客户端同时请求：四条流同时开始，因为唯一的实例并不会在吐词期间被占住。',
    '在统计接口（/v2/models/token_streamer/stats）里，一条流只算一个请求，每个响应则按序号计入 response_stats。',
  ],
  caption: '每一道刻线是一个词，画在它到达的时刻。',
};

export interface StreamingDemoText {
  prompt: string;
  tokens: string;
  stream: string;
  fourAtOnce: string;
  running: string;
  firstToken: string;
  total: string;
  perToken: string;
  client: (n: number) => string;
  needsServer: string;
  failed: (msg: string) => string;
}

export const STREAMING_DEMO_EN: StreamingDemoText = {
  prompt: 'Prompt',
  tokens: 'Tokens',
  stream: 'Stream',
  fourAtOnce: 'Four clients at once',
  running: 'streaming…',
  firstToken: 'time to first token',
  total: 'total',
  perToken: 'per token',
  client: (n) => `client ${n}`,
  needsServer: 'This demo talks to the server that served this page (npm start), with the bundled token_streamer model loaded.',
  failed: (msg) => `the stream failed: ${msg}`,
};

export const STREAMING_DEMO_ZH: StreamingDemoText = {
  prompt: '提示词',
  tokens: '词数',
  stream: '开始流式',
  fourAtOnce: '四个客户端同时请求',
  running: '正在输出…',
  firstToken: '首词时间',
  total: '总时间',
  perToken: '每个词',
  client: (n) => `客户端 ${n}`,
  needsServer: '这个演示要连到提供本页面的服务器（npm start），并且已加载自带的 token_streamer 模型。',
  failed: (msg) => `流式请求失败：${msg}`,
};
