/**
 * Lesson 15 "the batch is rebuilt every step": the token timeline (charts/generate's TokenTimelineChart) of
 * the same arrivals served request-level or continuously, the knob switching between the two runs; beside
 * it the verdict computed from both rows (claims.ts 'rebuild'). The timeline is revealed up to the stage
 * header's time (GenDemoParts.tsx useGenReveal); the verdict stays the two whole runs. Runs: rebuild-run.ts,
 * cached per mode.
 */
import { useMemo, useState } from 'react';
import type { GenBatching } from '@inferscope/core/iterative';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { REBUILD_DEMO_EN, REBUILD_DEMO_ZH } from '../i18n/lesson-rebuild';
import { TokenTimelineChart } from '../charts/generate';
import { claimHolds } from './claims';
import { BATCHINGS, rebuildFigures, runRebuild } from './rebuild-run';
import { GenStage, KnobButtons, perS, RowsTable, useGenReveal } from './GenDemoParts';

const text = () => (language() === 'zh' ? REBUILD_DEMO_ZH : REBUILD_DEMO_EN);

export function RebuildDemo() {
  const t = text();
  const [mode, setMode] = useState<GenBatching>('static');
  // both rows (two small runs, cached): the verdict is computed from them
  const rows = useMemo(() => BATCHINGS.map((b) => runRebuild(b)), []);
  const f = rebuildFigures(rows);
  const holds = claimHolds('rebuild', f);
  const now = rows.find((r) => r.batching === mode)!;
  const shown = useGenReveal(now);
  return (
    <GenStage
      testid="rebuild-demo" text={t}
      data={{ mode, claim: holds ? 'holds' : 'fails', tokens: now.summary.outputTokens, span: now.summary.spanUs }}
      knobs={<KnobButtons label={t.batching} options={BATCHINGS} value={mode} set={setMode} name={(b) => t.modes[b]} testid="rebuild-mode" />}
      picture={<TokenTimelineChart cells={shown.cells} rows={now.slots} window={shown.window} />}
      reveal={shown}
      verdict={t.verdict({
        shown: t.modes[mode],
        tokensStatic: f.tokensStatic, tokensContinuous: f.tokensContinuous,
        spanStatic: formatUs(f.spanStatic), spanContinuous: formatUs(f.spanContinuous),
        tpsStatic: perS(f.tpsStatic), tpsContinuous: perS(f.tpsContinuous),
        ttftP50Static: formatUs(f.ttftP50Static), ttftP50Continuous: formatUs(f.ttftP50Continuous),
        ttftP99Static: formatUs(f.ttftP99Static), ttftP99Continuous: formatUs(f.ttftP99Continuous),
        steps: f.ttftStepsContinuous.toFixed(1), padStatic: f.padStatic,
      }, holds)}
      table={<RowsTable
        head={[t.table.mode, t.table.tokens, t.table.span, t.table.tps, t.table.ttft50, t.table.ttft99, t.table.pad, t.table.steps]}
        rows={rows.map((r) => ({
          key: r.batching, current: r === now,
          data: { mode: r.batching, tokens: r.summary.outputTokens, span: r.summary.spanUs, ttft99: r.summary.ttftUs.p99 },
          cells: [t.modes[r.batching], r.summary.outputTokens, formatUs(r.summary.spanUs), perS(r.summary.outputTokensPerSec), formatUs(r.summary.ttftUs.p50), formatUs(r.summary.ttftUs.p99), r.summary.padSlots, r.steps],
        }))} />}
    />
  );
}
