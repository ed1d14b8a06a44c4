// Repository rules (pure): version folders, version policies, layout and poll diffs.
export * from './versions';
export * from './layout';
export * from './diff';
