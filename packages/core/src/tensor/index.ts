// Tensors: the types, datatype helpers (sizes, typed arrays, ORT names) and batch concat/split.
export * from './types';
export * from './dtypes';
export * from './batch';
export * from './raw-bytes';
