/**
 * Lesson 16 "memory, not compute, is the limit": the KV block map (charts/generate's KvBlockMap) of the run
 * the knobs pick (KV blocks, batch_scheduler_policy) after the last step finished by the stage header's
 * time, so play, pause, step, restart and the scrubber move the budget as it fills and frees (the lesson
 * opens on the first preemption: kv-limit-run.ts kvOpeningUs, lessons.ts openAtUs), and the run's token
 * timeline beside it with its preemptions, revealed alike (GenDemoParts.tsx useGenReveal); beside them the
 * verdict computed from every whole row (claims.ts 'kvlimit'). Runs: kv-limit-run.ts, cached per setting,
 * their step events carrying the block map.
 */
import { useMemo, useState } from 'react';
import type { KvAdmissionPolicy } from '@inferscope/core/kv-cache';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { KV_LIMIT_DEMO_EN, KV_LIMIT_DEMO_ZH } from '../i18n/lesson-kv-limit';
import { KvBlockMap, TokenTimelineChart } from '../charts/generate';
import { claimHolds } from './claims';
import { BASE_KNOBS, blockMapShown } from './gen-run';
import { BLOCK_CHOICES, KV_OPENING, kvFigures, kvRows, POLICIES, runKv } from './kv-limit-run';
import { GenStage, KnobButtons, perS, RowsTable, useGenReveal } from './GenDemoParts';

const text = () => (language() === 'zh' ? KV_LIMIT_DEMO_ZH : KV_LIMIT_DEMO_EN);

export function KvLimitDemo() {
  const t = text();
  const [policy, setPolicy] = useState<KvAdmissionPolicy>(KV_OPENING.policy);
  const [blocks, setBlocks] = useState(KV_OPENING.blocks);
  // every row (eight small runs, cached): the verdict is computed from them
  const rows = useMemo(() => kvRows(), []);
  const f = kvFigures(rows);
  const holds = claimHolds('kvlimit', f);
  const now = runKv([policy, blocks]);
  const shown = useGenReveal(now);
  const map = blockMapShown(now.events, { totalBlocks: blocks, blockTokens: BASE_KNOBS.blockTokens, policy }, shown.step);
  return (
    <GenStage
      testid="kvlimit-demo" text={t}
      data={{ policy, blocks, claim: holds ? 'holds' : 'fails', tps: Math.round(now.summary.outputTokensPerSec), preemptions: now.summary.preemptions }}
      knobs={<>
        <KnobButtons label={t.blocks} options={BLOCK_CHOICES} value={blocks} set={setBlocks} name={String} testid="kvlimit-blocks" />
        <KnobButtons label={t.policy} options={POLICIES} value={policy} set={setPolicy} name={String} testid="kvlimit-policy" quiet />
      </>}
      picture={<>
        <div className="flex gap-3 items-start">
          <div className="shrink-0" style={{ width: '40%' }}>{map && <KvBlockMap map={map} legendMax={2} />}</div>
          <div className="flex-1 min-w-0"><TokenTimelineChart cells={shown.cells} rows={now.slots} window={shown.window} /></div>
        </div>
      </>}
      reveal={shown}
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
