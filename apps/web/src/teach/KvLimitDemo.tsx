/**
 * Lesson 16 "memory, not compute, is the limit": the KV block map (charts/generate's KvBlockMap) after a
 * step of the run the knobs pick (KV blocks, batch_scheduler_policy), a slider to move through its steps
 * (it opens on the first preemption, or the fullest step) or its own playback through them, so the budget
 * fills and frees as the run goes, and the run's token timeline beside it with its preemptions; beside it the verdict computed from every row (claims.ts 'kvlimit'). Runs: kv-limit-run.ts,
 * cached per setting, their step events carrying the block map.
 */
import { useEffect, useMemo, useState } from 'react';
import type { KvAdmissionPolicy } from '@inferscope/core/kv-cache';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { KV_LIMIT_DEMO_EN, KV_LIMIT_DEMO_ZH } from '../i18n/lesson-kv-limit';
import { KvBlockMap, TokenTimelineChart } from '../charts/generate';
import { claimHolds } from './claims';
import { blockMapAt } from './gen-run';
import { BLOCK_CHOICES, kvFigures, kvRows, openingStep, POLICIES, runKv } from './kv-limit-run';
import { GenStage, KnobButtons, perS, RowsTable } from './GenDemoParts';

/** wall ms per step while the map plays its run */
const STEP_MS = 60;

const text = () => (language() === 'zh' ? KV_LIMIT_DEMO_ZH : KV_LIMIT_DEMO_EN);

export function KvLimitDemo() {
  const t = text();
  const [policy, setPolicy] = useState<KvAdmissionPolicy>('max_utilization');
  const [blocks, setBlocks] = useState(16);
  const [picked, setPicked] = useState<{ key: string; step: number } | null>(null);
  // every row (eight small runs, cached): the verdict is computed from them
  const rows = useMemo(() => kvRows(), []);
  const f = kvFigures(rows);
  const holds = claimHolds('kvlimit', f);
  const now = runKv([policy, blocks]);
  const key = `${policy}/${blocks}`;
  const step = picked?.key === key ? picked.step : openingStep(now);
  const map = blockMapAt(now.events, step);
  const [playing, setPlaying] = useState(false);
  // the map's own playback: a step every STEP_MS until the run's last, from the step picked (or the first)
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      setPicked((p) => {
        const from = p?.key === key ? p.step : 0;
        if (from >= now.steps) {
          setPlaying(false);
          return p;
        }
        return { key, step: from + 1 };
      });
    }, STEP_MS);
    return () => clearInterval(timer);
  }, [playing, key, now.steps]);
  return (
    <GenStage
      testid="kvlimit-demo" text={t}
      data={{ policy, blocks, step, claim: holds ? 'holds' : 'fails', tps: Math.round(now.summary.outputTokensPerSec), preemptions: now.summary.preemptions }}
      knobs={<>
        <KnobButtons label={t.blocks} options={BLOCK_CHOICES} value={blocks} set={setBlocks} name={String} testid="kvlimit-blocks" />
        <KnobButtons label={t.policy} options={POLICIES} value={policy} set={setPolicy} name={String} testid="kvlimit-policy" quiet />
        <div className="flex items-center gap-2 basis-full">
          <button type="button" className="btn shrink-0" data-testid="kvlimit-play" aria-pressed={playing}
            onClick={() => {
              if (!playing && step >= now.steps) setPicked({ key, step: 1 });
              setPlaying(!playing);
            }}>{playing ? t.pause : t.play}</button>
          <span className="font-mono shrink-0" data-testid="kvlimit-step-label">{t.step(step, now.steps)}</span>
          <input type="range" className="flex-1" aria-label={t.step(step, now.steps)} min={1} max={now.steps} value={step} data-testid="kvlimit-step"
            onChange={(e) => setPicked({ key, step: Number(e.target.value) })} />
        </div>
      </>}
      picture={<>
        <div className="flex gap-3 items-start">
          <div className="shrink-0" style={{ width: '40%' }}>{map && <KvBlockMap map={map} legendMax={2} />}</div>
          <div className="flex-1 min-w-0"><TokenTimelineChart cells={now.cells} rows={now.slots} /></div>
        </div>
      </>}
      verdict={t.verdict({
        blocks, policy, big: f.big, small: f.small,
        tpsBig: perS(f.tpsBig), tpsSmallNoEvict: perS(f.tpsSmallNoEvict), tpsSmallMaxUtil: perS(f.tpsSmallMaxUtil),
        ttftP99Big: formatUs(f.ttftP99Big), ttftP99SmallNoEvict: formatUs(f.ttftP99SmallNoEvict),
        itlP99Big: formatUs(f.itlP99Big), itlP99SmallMaxUtil: formatUs(f.itlP99SmallMaxUtil),
        preemptSmallMaxUtil: f.preemptSmallMaxUtil, tps: perS(now.summary.outputTokensPerSec), preemptions: now.summary.preemptions,
      }, holds)}
      table={<RowsTable
        head={[t.table.policy, t.table.blocks, t.table.tps, t.table.span, t.table.ttft99, t.table.itl99, t.table.preempt, t.table.peak]}
        rows={rows.map((r) => ({
          key: `${r.policy}/${r.blocks}`, current: r === now,
          data: { policy: r.policy, blocks: r.blocks, tps: Math.round(r.summary.outputTokensPerSec), preemptions: r.summary.preemptions },
          cells: [r.policy, r.blocks, perS(r.summary.outputTokensPerSec), formatUs(r.summary.spanUs), formatUs(r.summary.ttftUs.p99), formatUs(r.summary.interTokenUs.p99), r.summary.preemptions, r.summary.peakBlocksUsed],
        }))} />}
    />
  );
}
