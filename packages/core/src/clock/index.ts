export * from './clock';
export { RealClock, type FineWait } from './real-clock';
export { VirtualClock } from './virtual-clock';
export { LONGEST_TIMER_MS, timerDelayMs } from './timer-delay';
