// The live channel's contract: the Socket.IO wire types, the control messages' schemas and their one validator.
export * from './protocol';
export * from './control-schema';
export * from './control-validation';
export * from './generation';
export * from './generation-view';
