/**
 * Chinese for the sentences the server and core compose in English at run time: the autotuner's reasons
 * (why it moved or holds, what it proposes, why a prediction has no number: core's autotune/policy.ts,
 * instances.ts, proposal.ts, queue-model.ts) and the memory-budget refusal (the server's memory/ledger.ts).
 * Each pattern follows the English sentence it renders, numbers carried over as written; a sentence no
 * pattern knows is shown as sent (an English page, or a sentence core has since reworded).
 */
import { language } from './strings';

type Rule = [RegExp, (m: RegExpExecArray) => string];

const WHEN: Record<string, string> = { start: '开始时', 'the target or the delay changed': '目标或延迟变了' };

const AUTOTUNE: Rule[] = [
  [/^no delay meets the target with (\d+) instances?: one more$/, (m) => `${m[1]} 个实例时没有哪个延迟能达到目标：再加一个实例`],
  [/^the rate fell: one instance fewer meets the target$/, () => '请求率下降：少一个实例也能达到目标'],
  [/^(.+): the delay (.+) is not below the target (.+); half the target until the traffic is measured$/, (m) => `${WHEN[m[1]] ?? m[1]}：延迟 ${m[2]} 不低于目标 ${m[3]}；测到流量之前先用目标的一半`],
  [/^the target is missed: the next decision corrects it$/, () => '未达到目标：下一次决策会纠正'],
  [/^measuring the last change for (.+) more$/, (m) => `正在测量上一次修改的效果，还需 ${m[1]}`],
  [/^proposed (.+) ago, made: (.+)$/, (m) => `${m[1]}前提出，现已执行：${autotuneText(m[2])}`],
  [/^preferred sizes cleared as proposed$/, () => '已按提议清除首选批大小'],
  [/^least compute per request predicted within target$/, () => '预测在目标之内、每个请求实例时间最少'],
  [/^measured p99 above target: back off$/, () => '实测 p99 高于目标：把延迟调小'],
  [/^a move back would undo the last change while the traffic is unchanged$/, () => '流量没变，往回调会撤销上一次修改'],
  [/^preferred sizes \[(.*)\] cut batches at (.+); without them a delay of (.+) forms batches of (.+) and saves (.+) µs of instance time a request within the target$/,
    (m) => `首选批大小 [${m[1]}] 把批截在 ${m[2]}；去掉它们，延迟 ${m[3]} 能组成 ${m[4]} 的批，在目标之内每个请求省 ${m[5]} µs 实例时间`],
  [/^nothing measured yet at this delay$/, () => '这个延迟下还没有测量'],
  [/^beyond the queue model$/, () => '超出排队模型的范围'],
  [/^the instances? cannot keep up \((\d+)% busy\)$/, (m) => `实例跟不上（忙碌 ${m[1]}%）`],
  [/^the instances? would be (\d+)% busy: beyond the queue model$/, (m) => `实例将忙碌 ${m[1]}%：超出排队模型的范围`],
];

/** An autotuner reason in the page's language. */
export function autotuneText(text: string): string {
  if (language() !== 'zh') return text;
  for (const [re, zh] of AUTOTUNE) {
    const m = re.exec(text);
    if (m) return zh(m);
  }
  return text;
}

const REFUSALS: Rule[] = [
  [/^loading instance (\S+) of model '([^']+)' version (\S+) needs ([\d.]+) MiB on (\S+), only ([\d.]+) MiB of the budget ([\d.]+) MiB is free/,
    (m) => `超出内存预算：加载模型 ${m[2]} 版本 ${m[3]} 的实例 ${m[1]} 需要 ${m[4]} MiB（${m[5]}），预算 ${m[7]} MiB 只剩 ${m[6]} MiB`],
  [/^adding (\d+) instances? of model '([^']+)' version (\S+) needs ([\d.]+) MiB on (\S+), only ([\d.]+) MiB of the budget ([\d.]+) MiB is free/,
    (m) => `超出内存预算：给模型 ${m[2]} 版本 ${m[3]} 加 ${m[1]} 个实例需要 ${m[4]} MiB（${m[5]}），预算 ${m[7]} MiB 只剩 ${m[6]} MiB`],
];

/**
 * What a server refusal means, in Chinese, for a Chinese page (the refusal itself is still shown as the
 * server worded it); undefined on an English page or for a refusal no rule knows.
 */
export function refusalGloss(error: string): string | undefined {
  if (language() !== 'zh') return undefined;
  for (const [re, zh] of REFUSALS) {
    const m = re.exec(error);
    if (m) return zh(m);
  }
  return undefined;
}
