// Live configuration: what may change while a model is loaded, where it lives in a config, and its bounds.
export * from './fields';
export * from './limits';
export * from './paths';
export * from './knobs';
export * from './iterative-knobs';
