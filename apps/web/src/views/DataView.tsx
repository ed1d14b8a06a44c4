import { appStore, live, useApp } from '../store/app-store';
import { selectedModels } from '../store/select';
import { ChartCard } from '../charts/ChartCard';
import { drawDataFlow } from './data-flow-draw';
import { drawnLabels, type DrawnLabel } from './data-flow-shared';

declare global {
  interface Window {
    /** the labels of the last data-flow frame, for the layout tests (test-hooks.ts) */
    __inferscopeLabels?: () => DrawnLabel[];
  }
}
exposeForTests('__inferscopeLabels', () => drawnLabels.slice());
import { animUs, dataNowUs } from '../live/clock';
import { S } from '../i18n/strings';
import { TRIGGER_COLOUR } from '../charts/theme';
import { pipelineOf } from '../store/pipeline';
import { ProtocolLine } from './ProtocolCard';
import { exposeForTests } from '../platform/test-hooks';

/** Data: requests flowing live from arrival through the queues and batcher to an instance and back. */
/**
 * Each model's row keeps the height one model gets alone (less its header): the old 1400 px cap squeezed
 * twelve models into 115 px rows, where the batcher's labels ran into each other.
 */
const ROW_PX = 340;

export function DataView() {
  const model = useApp((s) => s.model);
  useApp((s) => s.structureRev);
  const n = Math.max(1, selectedModels(live, model).length);
  const draw = (ctx: CanvasRenderingContext2D, w: number, h: number) => {
    const s = appStore.getState();
    drawnLabels.length = 0;
    drawDataFlow(ctx, w, h, live, selectedModels(live, s.model), dataNowUs(), animUs(), s.colour);
  };
  return (
    <div data-testid="view-data" className="space-y-3">
      <ChartCard title={S.views.data} draw={draw} height={n === 1 ? 400 : 30 + ROW_PX * n} animate testId="chart-dataflow">
        <p className="px-3 pb-3 text-sm text-muted max-w-5xl">{S.flowCaption}</p>
        {selectedModels(live, model).some((m) => pipelineOf(m.config)) && <p className="px-3 pb-3 text-sm text-muted max-w-5xl">{S.pipeline.caption}</p>}
      </ChartCard>
      <div className="flex flex-wrap gap-3 text-sm" aria-label={S.flow.triggersLabel}>
        {Object.entries(S.triggers).map(([k, label]) => (
          <span key={k} className="flex items-center gap-1">
            <span className="inline-block w-3 h-3 rounded-sm" style={{ background: TRIGGER_COLOUR[k] }} /> {label}
          </span>
        ))}
      </div>
      <ProtocolLine />
    </div>
  );
}
