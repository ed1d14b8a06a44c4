/**
 * The host conditions a benchmark's figures depend on, printed in each bench's first line: the load
 * average, and on a KVM guest whether idle vCPUs poll before they halt.
 *
 * Why the second: on a KVM guest whose cpuidle driver is haltpoll with guest_halt_poll_ns 0, an idle vCPU
 * halts at once, so every wake-up of a sleeping thread on it (a stub's answer waking the server's event
 * loop, the server waking a worker) is a VM exit and an interrupt sent through the host, ~20-30 µs of the
 * waker's CPU. With halt-polling on (e.g. 400000 ns) the same wake-up is a store the polling vCPU sees.
 * The setting moved the PyTorch stub's ratio at batch 8 from ~0.8 to ~0.92 on one Intel VM with no code
 * change (bench/backends/README.md), so figures taken under different settings are not comparable.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** "haltpoll, guest_halt_poll_ns 0 (idle vCPUs halt at once)", or undefined where there is no such driver */
export function idlePolling(): string | undefined {
  const driver = read('/sys/devices/system/cpu/cpuidle/current_driver');
  if (driver !== 'haltpoll') return undefined;
  const ns = read('/sys/module/haltpoll/parameters/guest_halt_poll_ns');
  return `cpuidle haltpoll, guest_halt_poll_ns ${ns ?? '?'}${ns === '0' ? ' (idle vCPUs halt at once: each wake-up is a VM exit)' : ''}`;
}

/** "load average 0.5 0.8 1.3" and, where it applies, the idle polling of the vCPUs */
export function hostConditions(): string {
  const idle = idlePolling();
  return `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}${idle ? `, ${idle}` : ''}`;
}
