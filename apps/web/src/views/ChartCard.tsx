import type { ReactNode } from 'react';
import { useCanvas, type DrawFn } from '../charts/use-canvas';

/** A titled panel holding one canvas chart. */
export function ChartCard(props: { title: string; draw: DrawFn; height?: number; animate?: boolean; testId?: string; children?: ReactNode }) {
  const ref = useCanvas(props.draw, { minIntervalMs: props.animate ? 0 : 100, alwaysDirty: props.animate });
  return (
    <section className="card flex flex-col" data-testid={props.testId}>
      <h3 className="card-title">{props.title}</h3>
      <canvas ref={ref} className="w-full" style={{ height: props.height ?? 180 }} role="img" aria-label={props.title} />
      {props.children}
    </section>
  );
}
