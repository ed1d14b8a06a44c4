/**
 * Lesson 17 "long prompts stall everyone": the token timeline (views/generate's TokenTimelineChart) of six
 * decoders and one long prompt, for the enable_chunked_context and max_num_tokens the knobs pick; beside
 * it the verdict computed from the rows (claims.ts 'chunked'): the decoders' longest gap without chunking
 * against chunking at the budget picked. Runs: chunk-run.ts, cached per setting.
 */
import { useMemo, useState } from 'react';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { CHUNK_DEMO_EN, CHUNK_DEMO_ZH } from '../i18n/lesson-chunk';
import { TokenTimelineChart } from '../views/generate';
import { claimHolds } from './claims';
import { CHUNK_WORKLOAD, chunkFigures, chunkRows, runChunk, TOKEN_BUDGETS } from './chunk-run';
import { GenStage, KnobButtons, RowsTable } from './GenDemoParts';

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
  const onOff = (b: boolean) => (b ? t.onOff.on : t.onOff.off);
  return (
    <GenStage
      testid="chunked-demo" text={t}
      data={{ chunked: String(chunked), budget, claim: holds ? 'holds' : 'fails', stall: now.decoderGapMaxUs, refused: String(now.longRefused) }}
      knobs={<>
        <KnobButtons label={t.chunked} options={[false, true]} value={chunked} set={setChunked} name={onOff} testid="chunked-on" mono />
        <KnobButtons label={t.budget} options={TOKEN_BUDGETS} value={budget} set={setBudget} name={String} testid="chunked-budget" mono />
      </>}
      picture={<TokenTimelineChart cells={now.cells} rows={now.slots} />}
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
