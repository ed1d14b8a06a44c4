export * from './clock';
export { RealClock, type FineWait } from './real-clock';
export { VirtualClock } from './virtual-clock';
