// Small data structures and helpers shared by core's areas and the apps.
export { MinHeap } from './min-heap';
export { fitLine } from './fit-line';
export { depthExceeds, utf8Length, MAX_JSON_DEPTH, NESTING_MESSAGE } from './json-depth';
export { readTokenStream, splitEvents, type TokenArrival } from './token-stream';
