/**
 * The streaming lesson's demo: asks the page's own server for text from the bundled token_streamer
 * (POST /v2/models/token_streamer/generate_stream, server-sent events) and shows the tokens as they
 * arrive, a tick per token on a time line, and time to first token against total time. "Four clients at
 * once" sends four streams together: they all start at once, because a decoupled model's instance is
 * free again when execute() returns. Real traffic to the real model, not the simulator.
 */
import { useEffect, useRef, useState } from 'react';
import { language } from '../i18n/strings';
import { STREAMING_DEMO_EN, STREAMING_DEMO_ZH } from '../i18n/lesson-streaming';
import { readTokenStream, streamTimings, type TokenArrival } from './token-stream';

const MODEL = 'token_streamer';
const W = 640;

interface Run {
  tokens: TokenArrival[];
  done: boolean;
  totalMs: number;
  error?: string;
}

const text = () => (language() === 'zh' ? STREAMING_DEMO_ZH : STREAMING_DEMO_EN);
const ms = (v: number | undefined) => (v === undefined ? '–' : `${Math.round(v)} ms`);

export function StreamingDemo() {
  const t = text();
  const [prompt, setPrompt] = useState('the server');
  const [count, setCount] = useState(16);
  const [runs, setRuns] = useState<Run[]>([]);
  const generation = useRef(0);

  const start = (clients: number) => {
    const gen = ++generation.current;
    const fresh: Run[] = Array.from({ length: clients }, () => ({ tokens: [], done: false, totalMs: 0 }));
    setRuns(fresh);
    const update = (i: number, f: (r: Run) => Run) => {
      if (gen !== generation.current) return; // a newer press replaced this run
      setRuns((rs) => rs.map((r, k) => (k === i ? f(r) : r)));
    };
    fresh.forEach((_, i) => {
      const t0 = performance.now();
      fetch(`/v2/models/${MODEL}/generate_stream`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text_input: clients > 1 ? `${prompt} ${i + 1}` : prompt, max_tokens: count }),
      }).then(async (res) => {
        if (!res.ok || !res.body) throw new Error(((await res.json().catch(() => ({}))) as { error?: string }).error ?? `HTTP ${res.status}`);
        const out = await readTokenStream(res.body, t0, () => performance.now(), (tok) => update(i, (r) => ({ ...r, tokens: [...r.tokens, tok], totalMs: tok.atMs })));
        update(i, (r) => ({ ...r, done: true, totalMs: out.endMs, ...(out.error ? { error: out.error } : {}) }));
      }).catch((err: Error) => update(i, (r) => ({ ...r, done: true, error: err.message })));
    });
  };

  // the lesson plays by itself: one stream starts when it opens, so the picture is never an empty box
  useEffect(() => start(1), []);

  const span = Math.max(1000, ...runs.map((r) => r.totalMs));
  return (
    <div className="card p-3 mb-2 space-y-2" data-testid="streaming-demo">
      <div className="flex flex-wrap gap-2 items-end text-sm">
        <label className="field">
          <span>{t.prompt}</span>
          <input className="input" value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="streaming-prompt" />
        </label>
        <label className="field">
          <span>{t.tokens}</span>
          <input className="input w-20" type="number" min={1} max={64} value={count} onChange={(e) => setCount(Math.max(1, Math.min(64, Number(e.target.value) || 1)))} data-testid="streaming-count" />
        </label>
        <button type="button" className="btn btn-primary" onClick={() => start(1)} data-testid="streaming-start">{t.stream}</button>
        <button type="button" className="btn" onClick={() => start(4)} data-testid="streaming-four">{t.fourAtOnce}</button>
      </div>
      {runs.map((r, i) => {
        const tm = streamTimings(r.tokens, r.totalMs);
        return (
          <div key={i} className="text-sm" data-testid="streaming-run" data-tokens={tm.tokens} data-done={r.done ? 'true' : 'false'} data-first-ms={tm.firstMs ?? ''} data-total-ms={r.done ? Math.round(r.totalMs) : ''}>
            <div className="flex flex-wrap gap-3 text-xs text-muted">
              {runs.length > 1 && <span className="font-semibold">{t.client(i + 1)}</span>}
              <span>{t.firstToken}: <b>{ms(tm.firstMs)}</b></span>
              <span>{t.total}: <b>{r.done ? ms(r.totalMs) : t.running}</b></span>
              <span>{t.perToken}: <b>{ms(tm.gapMs)}</b></span>
            </div>
            <svg viewBox={`0 0 ${W} 18`} className="w-full" role="img" aria-label={`${t.firstToken} ${ms(tm.firstMs)}, ${t.total} ${ms(r.totalMs)}`}>
              <line x1={0} y1={9} x2={W} y2={9} stroke="currentColor" strokeOpacity={0.25} />
              {r.tokens.map((tok, k) => <line key={k} x1={(tok.atMs / span) * W} x2={(tok.atMs / span) * W} y1={2} y2={16} stroke="currentColor" strokeWidth={k === 0 ? 3 : 1.5} />)}
            </svg>
            <p className="font-mono" data-testid="streaming-text">{r.tokens.map((tok) => tok.text).join('')}{r.done ? '' : ' ▍'}</p>
            {r.error && <p className="text-danger text-xs" data-testid="streaming-error">{t.failed(r.error)} {t.needsServer}</p>}
          </div>
        );
      })}
    </div>
  );
}
