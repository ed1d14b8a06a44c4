import { useState, type ReactNode } from 'react';
import { markerTipAt, useCanvas, type DrawFn } from './use-canvas';
import { S } from '../i18n/strings';

/** A titled panel holding one canvas chart; `logToggle` adds a button that switches its y axis to log. */
export function ChartCard(props: { title: string; draw: DrawFn; height?: number; animate?: boolean; testId?: string; logToggle?: boolean; rev?: () => number; children?: ReactNode }) {
  const [log, setLog] = useState(false);
  // a click on the chart opens (or closes) a legend cut to "+N more"
  const [legendAll, setLegendAll] = useState(false);
  const ref = useCanvas(props.draw, { minIntervalMs: props.animate ? 0 : 100, alwaysDirty: props.animate, log, legendAll, rev: props.rev });
  return (
    <section className="card flex flex-col" data-testid={props.testId}>
      <div className="flex items-center justify-between gap-2">
        <h3 className="card-title min-w-0">{props.title}</h3>
        {props.logToggle && (
          <button type="button" className="text-xs underline opacity-70 shrink-0 whitespace-nowrap mr-2" aria-pressed={log} title={S.panels.logTitle} onClick={() => setLog(!log)}>
            {log ? S.panels.linear : S.panels.log}
          </button>
        )}
      </div>
      <canvas
        ref={ref} className="w-full" style={{ height: props.height ?? 180 }} role="img" aria-label={props.title}
        aria-expanded={legendAll} onClick={() => setLegendAll(!legendAll)}
        // a configuration marker says on hover what changed and, for the autotuner's, why
        onMouseMove={(e) => {
          const c = e.currentTarget;
          const tip = markerTipAt(c, e.clientX - c.getBoundingClientRect().left) ?? '';
          if (c.title !== tip) c.title = tip;
        }}
      />
      {props.children}
    </section>
  );
}
