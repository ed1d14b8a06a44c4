/** The performance view's four charts of the selected iterative models (gen-time-charts.ts); nothing when none is selected. */
import { live, useApp } from '../../store/app-store';
import { selectedModels } from '../../store/select';
import { ChartCard } from '../../charts/ChartCard';
import { S } from '../../i18n/strings';
import { iterativeModels } from './GenerationStateCard';
import { drawGenItl, drawGenKv, drawGenTokens, drawGenTtft } from './gen-time-charts';

export function GenerationCharts(props: { height: number }) {
  useApp((s) => s.structureRev);
  const model = useApp((s) => s.model);
  if (iterativeModels(selectedModels(live, model)).length === 0) return null;
  return (
    <>
      <ChartCard title={S.genCharts.ttft} draw={drawGenTtft} height={props.height} testId="chart-gen-ttft" logToggle />
      <ChartCard title={S.genCharts.itl} draw={drawGenItl} height={props.height} testId="chart-gen-itl" logToggle />
      <ChartCard title={S.genCharts.tokens} draw={drawGenTokens} height={props.height} testId="chart-gen-tokens" />
      <ChartCard title={S.genCharts.kv} draw={drawGenKv} height={props.height} testId="chart-gen-kv" />
    </>
  );
}
