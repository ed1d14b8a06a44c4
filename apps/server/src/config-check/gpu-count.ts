/**
 * GPUs on this host, counted the way the NVIDIA driver exposes them: one /dev/nvidiaN device per GPU
 * (/dev/nvidiactl, /dev/nvidia-uvm ... are not GPUs). No driver, no devices: 0.
 */
import { readdirSync } from 'node:fs';

export function hostGpuCount(devDir = '/dev'): number {
  try {
    return readdirSync(devDir).filter((name) => /^nvidia[0-9]+$/.test(name)).length;
  } catch {
    return 0;
  }
}
