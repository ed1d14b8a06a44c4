/**
 * Lesson 2's common mistakes, each checked live by core's config engine (the same parser and validator
 * the server runs). Learners can edit the text and see Triton's message, with a hint, change as they type.
 */
import { useEffect, useMemo, useState } from 'react';
import { takeFocus } from './focus';
import { formatIssue, loadModelConfig } from '@inferscope/core/config';
import { S } from '../strings';
import { appStore } from '../store/app-store';

/** The example texts; their titles are in the language tables (S.mistakes.examples, same order). */
const EXAMPLES: { text: string }[] = [
  {
    text: 'name: "mlp_classifier"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 32\ninput [{ name: "input" data_type: TYPE_FP32 dims: [1, 784] }]\noutput [{ name: "logits" data_type: TYPE_FP32 dims: [10] }]\n',
  },
  {
    text: 'name: "mlp_classifier"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dims: [784] }]\noutput [{ name: "logits" data_type: TYPE_FP32 dims: [10] }]\ndynamic_batching { preferred_batch_size: [16] }\n',
  },
  {
    text: 'name: "mlp_classifier"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dim: [784] }]\n',
  },
  {
    text: 'name: "mlp"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dims: [784] }]\noutput [{ name: "logits" data_type: TYPE_FP32 dims: [10] }]\n',
  },
  {
    text: 'name: "mlp_classifier"\nplatform: "tensorrt_plan"\nbackend: "onnxruntime"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dims: [784] }]\noutput [{ name: "logits" data_type: TYPE_FP32 dims: [10] }]\n',
  },
];

export function MistakeChecker() {
  // the example can come from a shared link (?ex=) or a misconception card
  const [pick, setPick] = useState(() => Math.min(EXAMPLES.length - 1, appStore.getState().ex ?? 0));
  const [text, setText] = useState(EXAMPLES[pick].text);
  useEffect(takeFocus, []);
  const verdict = useMemo(() => {
    try {
      const r = loadModelConfig(text, { modelName: 'mlp_classifier', gpuCount: 0 });
      if (r.error) return { ok: false, message: formatIssue(r.error) };
      return { ok: true, message: S.mistakes.valid };
    } catch (err) {
      return { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
  }, [text]);
  return (
    <div className="space-y-2" data-testid="mistake-checker">
      <h3 className="text-xs uppercase tracking-wide text-muted">{S.mistakes.heading}</h3>
      <select className="input w-full" value={pick} onChange={(e) => { const i = Number(e.target.value); setPick(i); setText(EXAMPLES[i].text); appStore.setState({ ex: i || undefined }); }} aria-label={S.mistakes.pick} data-testid="mistake-pick">
        {EXAMPLES.map((_, i) => <option key={i} value={i}>{S.mistakes.examples[i]}</option>)}
      </select>
      <textarea className="input w-full font-mono text-xs" rows={7} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} aria-label="config.pbtxt" />
      {/* the server's own message, verbatim (Triton's wording, as a Chinese Triton user also sees it) */}
      <p className={`text-sm ${verdict.ok ? 'text-ok' : 'text-danger'}`} data-testid="mistake-verdict">
        {verdict.ok ? verdict.message : <><span className="font-semibold">{S.mistakes.serverSays} </span><span data-verbatim lang="en">{verdict.message}</span></>}
      </p>
    </div>
  );
}
