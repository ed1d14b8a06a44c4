export * from './clock';
export { RealClock } from './real-clock';
export { VirtualClock } from './virtual-clock';
