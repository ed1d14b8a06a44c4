// The live channel's contract: the Socket.IO wire types and the control messages' schemas.
export * from './protocol';
export * from './control-schema';
