/**
 * Lesson 17 "long prompts stall everyone": the token timeline (charts/generate's TokenTimelineChart) of six
 * decoders and one long prompt, for the enable_chunked_context and max_num_tokens the knobs pick; beside
 * it the verdict computed from the rows (claims.ts 'chunked'): the decoders' longest gap without chunking
 * against chunking at the budget picked, and under it each step's time. The timeline and the strip are
 * revealed up to the stage header's time (GenDemoParts.tsx useGenReveal); the verdict and the strip's
 * longest step stay the whole runs'. Runs: chunk-run.ts, cached per setting.
 */
import { useMemo, useState } from 'react';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { CHUNK_DEMO_EN, CHUNK_DEMO_ZH } from '../i18n/lesson-chunk';
import { TokenTimelineChart } from '../charts/generate';
import { claimHolds } from './claims';
import { CHUNK_WORKLOAD, chunkFigures, chunkRows, runChunk, TOKEN_BUDGETS } from './chunk-run';
import { GenStage, KnobButtons, RowsTable, useGenReveal } from './GenDemoParts';

/**
 * Each step's duration as a bar, in step order (the timeline's columns), on one scale for every run
 * (`scaleUs`): the timeline's columns are steps, not time, so this strip is where the long prompt's one
 * long step (or its chunks) shows. The bars are drawn to the step `shown` (the header's time), on the whole
 * run's width; the label's longest step is the whole run's, as the verdict's.
 */
function StepTimes(props: { stepUs: readonly number[]; shown: number; scaleUs: number; label: (longest: string) => string }) {
  const steps = props.stepUs.slice(1);
  const longest = Math.max(0, ...steps);
  const top = Math.max(1, props.scaleUs, longest);
  return (
    <div className="text-sm text-muted" data-testid="chunked-step-times" data-longest={longest}>
      <div>{props.label(formatUs(longest))}</div>
      <svg className="w-full h-10 block" viewBox={`0 0 ${Math.max(1, steps.length)} 1`} preserveAspectRatio="none" role="img" aria-label={props.label(formatUs(longest))}>
        {steps.slice(0, props.shown).map((us, i) => <rect key={i} x={i + 0.1} width={0.8} y={1 - us / top} height={us / top} fill={us === longest ? 'var(--c-danger)' : 'var(--c-accent)'} />)}
      </svg>
    </div>
  );
}

const text = () => (language() === 'zh' ? CHUNK_DEMO_ZH : CHUNK_DEMO_EN);

export function ChunkDemo() {
  const t = text();
  const [chunked, setChunked] = useState(false);
  const [budget, setBudget] = useState(256);
  // every row (six small runs, cached): the verdict is computed from them
  const rows = useMemo(() => chunkRows(), []);
  const { figures: f } = chunkFigures(rows, budget);
  const holds = claimHolds('chunked', f);
  const now = runChunk([chunked, budget]);
  const shown = useGenReveal(now);
  const onOff = (b: boolean) => (b ? t.onOff.on : t.onOff.off);
  return (
    <GenStage
      testid="chunked-demo" text={t}
      data={{ chunked: String(chunked), budget, claim: holds ? 'holds' : 'fails', stall: now.decoderGapMaxUs, refused: String(now.longRefused) }}
      knobs={<>
        <KnobButtons label={t.chunked} options={[false, true]} value={chunked} set={setChunked} name={onOff} testid="chunked-on" mono />
        <KnobButtons label={t.budget} options={TOKEN_BUDGETS} value={budget} set={setBudget} name={String} testid="chunked-budget" mono />
      </>}
      picture={<TokenTimelineChart cells={shown.cells} rows={now.slots} window={shown.window} />}
      reveal={shown}
      under={<StepTimes stepUs={now.stepUs} shown={shown.step} scaleUs={Math.max(...rows.flatMap((r) => r.stepUs))} label={t.stepTime} />}
      verdict={t.verdict({
        chunked, budget, refused: now.longRefused, prompt: CHUNK_WORKLOAD.longPrompt,
        stallOff: formatUs(f.stallOff), stallOn: formatUs(f.stallOn), gapP50: formatUs(f.gapP50Off), whole: chunked && now.longPrefillSteps === 1,
        longTtftOff: formatUs(f.longTtftOff), longTtftOn: formatUs(f.longTtftOn), chunks: f.chunks, onBudget: f.onBudget,
      }, holds)}
      table={<RowsTable
        head={[t.table.chunked, t.table.budget, t.table.stall, t.table.gap50, t.table.longTtft, t.table.chunks]}
        rows={rows.map((r) => ({
          key: `${r.chunked}/${r.budget}`, current: r === now,
          data: { chunked: String(r.chunked), budget: r.budget, stall: r.decoderGapMaxUs, refused: String(r.longRefused) },
          cells: [onOff(r.chunked), r.budget, formatUs(r.decoderGapMaxUs), formatUs(r.decoderGapP50Us), r.longRefused ? t.refused : formatUs(r.longTtftUs), r.longPrefillSteps],
        }))} />}
    />
  );
}
