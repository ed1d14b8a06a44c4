/** Scenario names offered in the load panel (the core's built-in presets; a custom name is kept too). */
export const SCENARIO_NAMES = ['steady', 'poisson', 'burst', 'ramp', 'overload', 'lunch-rush', 'mixed-priorities', 'trickle'];
