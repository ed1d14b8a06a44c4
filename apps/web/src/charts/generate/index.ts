// A generative model's pictures: plain-props components the live generation view and the lessons share.
export { TokenTimelineChart, KIND_FILL, type TokenTimelineChartProps } from './TokenTimelineChart';
export { KvBlockMap, gridColumns, type KvBlockMapProps } from './KvBlockMap';
export { seqColour } from './seq-colour';
export { cellsWindow, timelineRows, type StepWindow, type TimelineRow, type TimelineRun } from './timeline-runs';
