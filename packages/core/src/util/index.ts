// Small data structures and helpers shared by core's areas and the apps.
export { MinHeap } from './min-heap';
export { fitLine } from './fit-line';
