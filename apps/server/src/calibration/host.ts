/** The machine a calibration is measured on, as its `host` field records it (core sim/schemas.ts). */
import { cpus, platform } from 'node:os';
import type { Calibration } from '@inferscope/core/sim';

export function calibrationHost(): Calibration['host'] {
  const cores = cpus();
  return { cpus: cores.length, platform: `${platform()} ${cores[0]?.model ?? ''}`.trim(), runtime: `node ${process.versions.node}` };
}
