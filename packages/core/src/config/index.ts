// Public surface of the config.pbtxt engine: types, datatype mapping (parser, normaliser, validator and
// printer are added here as they land).
export * from './types';
export * from './datatype';
