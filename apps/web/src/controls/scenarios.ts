/** Scenario names offered in the load panel: the core's built-in presets (a custom name from the URL is kept too). */
import { PRESETS } from '@inferscope/core/load';

export const SCENARIO_NAMES: string[] = PRESETS.map((p) => p.name);
