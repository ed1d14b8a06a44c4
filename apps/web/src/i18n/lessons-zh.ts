/** 六节课的中文文本：与 lessons-en.ts 结构相同，由类型检查保证一一对应。 */
import type { LessonId, LessonText } from './lessons-en';
import { STREAMING_ZH } from './lesson-streaming';
import { AUTOTUNE_ZH } from './lesson-autotune';
import { SEATS_ZH } from './lesson-seats';
import { ACCELERATOR_ZH } from './lesson-accelerator';
import { REBUILD_ZH } from './lesson-rebuild';
import { KV_LIMIT_ZH } from './lesson-kv-limit';
import { CHUNK_ZH } from './lesson-chunk';

export const LESSONS_ZH: Record<LessonId, LessonText> = {
  streaming: STREAMING_ZH,
  autotune: AUTOTUNE_ZH,
  seats: SEATS_ZH,
  accelerator: ACCELERATOR_ZH,
  rebuild: REBUILD_ZH,
  kvlimit: KV_LIMIT_ZH,
  chunked: CHUNK_ZH,
  repository: {
    title: '模型仓库',
    claim: '模型仓库就是普通的目录：每个模型一个文件夹，里面按数字编号存放各个版本，由版本策略决定对外提供哪些版本。',
    intro: [
      'Triton 推理服务从模型仓库加载模型：每个模型一个文件夹，里面有 config.pbtxt，以及按版本编号的子文件夹，子文件夹中放模型文件（model.onnx、model.plan 等）。',
      '版本策略决定加载哪些版本（默认只加载最新版本）。每个加载的版本都有自己的调度器和实例。',
    ],
    watch: ['看每张模型卡片：版本、后端和状态。', '点击一个模型，查看它的文件和 Triton 读取的配置。', '“仓库大小”卡片把旁边列出的模型文件大小加起来。'],
    caption: '左边的卡片就是仓库里的文件夹；仓库大小等于它们所列文件大小之和。',
  },
  config: {
    title: '模型配置（及常见错误）',
    claim: '服务在加载任何东西之前先检查 config.pbtxt，每一种常见错误都会得到明确的报错信息。',
    intro: [
      'config.pbtxt 用 protobuf 文本格式告诉 Triton 模型的输入、输出、批处理方式和实例。',
      '常见错误：把批维度写进 dims（max_batch_size > 0 时 Triton 会自动在前面加上批维度，应写 dims: [784]，而不是 [1, 784]）；preferred_batch_size 大于 max_batch_size；name 与文件夹名不一致；platform 与 backend 对不上。',
    ],
    watch: ['逐个选择下面的错误示例：检查器显示服务给出的报错。', '手动改正配置文本，看报错变成“配置有效”。'],
    caption: '每个示例都由服务端同一套解析器和校验器检查。',
  },
  batching: {
    title: '动态批处理',
    claim: '批处理让一个实例扛住单条处理扛不住的负载；在中等负载下，最大排队延迟用一点时延换来更大的批、更少的单请求计算时间；过载时它几乎不起作用。',
    intro: [
      '不开启 dynamic_batching 时，每个请求单独执行，每次都要付出一次执行的固定开销。一旦请求到达速度超过逐条处理的速度，队列和时延就会无限增长。',
      '开启动态批处理后，正在排队的请求会合成一批一起执行。即使 max_queue_delay 为 0，过载时队列本身就会凑出满批；只有队列很短时延迟才有意义：稍等一会儿，让批变大。',
    ],
    watch: ['请求先排队，再合成一批一起离开；标签说明这一批为什么被发出。', '把图旁边的延迟滑块拖到 2000 µs：批变大了，每个请求等得更久。'],
    caption: '表 1：同样的过载负载下关闭与开启批处理。表 2：中等负载下延迟 0 与 2 ms 的对比：批大小、单请求实例时间与时延。表 3：同样的流量下，访存受限的 MLP 与计算受限的 CNN。',
  },
  backends: {
    title: '多后端',
    claim: '同一个网络、同一份权重，换一个后端，开销就不一样：在这台机器上，PyTorch（TorchScript）每个请求占用的实例时间比 ONNX Runtime 多，多出多少取决于批大小。',
    intro: [
      'mlp_classifier 和 mlp_classifier_torch 用的是同一份权重：前者跑在 ONNX Runtime 的工作线程里，后者每个实例是一个独立的 PyTorch 子进程，和 Triton 运行 python 后端的方式一样。两者的开销都用 inferscope calibrate 在本机实测。',
      '批大小为 1 时，两者算一遍网络的时间差不多，PyTorch 慢在请求要先发到子进程、结果再传回来；批里有好几个请求时（如较重负载那几行），ONNX Runtime 的算子优势显现，计算本身也拉开了差距；差距随批大小而变（在本机，批到 48–64 时两者又基本持平）。',
    ],
    watch: ['并排比较两个模型的时延和计算时间（在模型菜单中分别选择）。', '看表格：经过服务器和只看后端计算时，每个请求占用的实例时间；分别对应批大小约为 1 和较大的批。'],
    caption: '每一行使用完全相同的请求到达序列。“经过本服务”是请求实际要等的时间（含交接开销）；“仅后端计算”是 onnxruntime 的 session.run 或 torch 模型的前向计算。',
  },
  concurrency: {
    title: '并发调度与内存预算',
    claim: '增加实例在占满 CPU 核心之前有用，之后只是分享同样的核心；每个实例都要占内存，超出预算的那个实例会被拒绝。',
    intro: [
      '计算受限的模型（这个 CNN）从更大的批中获益很少。真正有用的是同时运行多个实例：每个实例在自己的核心上处理自己的一批。',
      '实例数超过核心数后，实例只能轮流使用同样的核心：实例更多，吞吐量不变。每个实例还要占用内存（工作区加上最大批的激活值）；内存预算会在内存耗尽之前拦住你。',
    ],
    watch: ['只有一个实例时队列深度不断增长。用图旁边的 + 按钮增加实例，看队列降下来。', '继续增加：会超出内存预算的那个实例被拒绝，并说明原因。'],
    caption: '同样的过载负载，2 核主机上 1 到 4 个实例：从 1 个到 2 个吞吐量翻倍，之后不再增长。',
  },
  operations: {
    title: '运维：健康检查、指标、压测',
    claim: '负载扫描能找到吞吐量上限：超过上限后吞吐量不再增长，时延却迅速上升；利特尔法则把在途请求数、速率和时延联系在一起。',
    intro: [
      '在线服务提供 GET /v2/health/live 和 /v2/health/ready（供负载均衡使用），在 /metrics 暴露 Prometheus 指标，在 /v2/models/<m>/stats 提供每个模型的统计。',
      '压测（npx inferscope perf，或负载面板）测量吞吐量与时延的关系。利特尔法则把它们联系起来：在途请求数 = 速率 × 时延。',
    ],
    watch: ['随时间变化的吞吐量和 p99；利特尔法则卡片与图表使用同一时间窗口计算。', '看扫描表：吞吐量从哪里开始不再跟随请求速率。'],
    caption: '每一行在同一配置上施加更大的流量：拐点处吞吐量不再上升，p99 急剧增大。',
  },
  course: {
    title: '课程示例：朴素批处理器与 Triton 的规则对比',
    claim: '只发送满批的批处理器，会让刚好错过一批的请求再等 max_batch - 1 个请求到达，流量稀疏时甚至要等到最后一次清空；max_queue_delay_microseconds 给这段等待设了上限。',
    intro: [
      '课程里的 Python 示例是一个朴素批处理器：请求进入队列，只有队列里攒够 max_batch（4）个请求时，才把整个队列作为一批处理，不论批大小都耗时 process_time（0.2 秒）。最后一个请求到达后，程序休眠 max_wait（0.3 秒），再把剩下的请求一次清空。它虽然有 max_wait，但在请求陆续到达的过程中从来不用。',
      'Triton 的动态批处理器（这里就是真实的调度器，处理完全相同的请求序列）在最早的请求等待超过 max_queue_delay_microseconds 时也会发出一批；延迟为 0 时，只要实例空闲就立即发送。',
    ],
    watch: ['看两条泳道：每条线是一个请求的等待时间，每个色块是一批。朴素泳道里，刚好在一批发走后到达的请求，线特别长。', '用到达间隔滑块让流量变稀疏：朴素批处理器把所有请求都压到最后一次清空；Triton 的等待始终不超过延迟。'],
    caption: '两条泳道使用相同的带种子的请求到达序列；等待时间从请求到达算到它所在批开始执行。',
  },
  online: {
    title: '应用场景：有时延预算的在线图片分类',
    claim: 'p99 时延预算为 10 ms 时，较短的延迟和较小的首选批大小让时延留在预算内，两个实例承担全部负载。',
    intro: ['在线服务直接面对用户：CNN 分类模型，每秒 3000 张图片，max_queue_delay 500 µs，首选批大小 4 和 8，两个实例跑在两个核心上。'],
    watch: ['看时延图上的 p99 与 10 ms 预算的对比。', '在控制面板里把延迟改成 5 ms：p99 上升但仍在预算之内，因为在这个速率下，批远在 5 ms 之前就达到首选大小 4；再清空首选批大小，由延迟决定发批：批和 p99 一起增大。'],
    caption: '时延优先：延迟只占预算的一小部分。',
  },
  offline: {
    title: '应用场景：以批处理为主的离线任务',
    claim: '离线任务只看吞吐量：较长的延迟和较大的首选批大小让每一批都是满批。',
    intro: ['离线任务处理积压的数据：MLP 模型，每秒 40000 个请求，max_batch_size 64，首选批大小 64，延迟 5 ms，两个实例。'],
    watch: ['看批大小分布：几乎每一批都是满批。', '看吞吐量图；时延到毫秒级也可以接受。'],
    caption: '吞吐量优先：满批，毫秒级时延没有问题。',
  },
  mixed: {
    title: '应用场景：多优先级服务',
    claim: '实例处理不过来时，由优先级决定谁来等：紧急请求（P1）先走，只等不到一毫秒，批量请求（P2）排在它们后面。',
    intro: ['一个 MLP 同时服务两类客户端：20% 是优先级 1 的紧急请求，80% 是优先级 2 的批量任务，总请求量比一个实例以 max_batch_size 8 分批所能处理的多四分之一（请求速率按实测开销设定），priority_levels 为 2。'],
    watch: ['在调度状态视图看各优先级的队列深度：P1 接近于零，队列主要是 P2。', '在顶部把数据流的着色依据改成优先级。'],
    caption: '优先级决定谁先走，而不是谁能被服务。',
  },
};
