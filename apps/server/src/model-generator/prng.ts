/**
 * A seeded pseudo-random generator for model weights and test data. Mulberry32: tiny, fast, and the
 * same sequence on every machine, which is what makes the generated .onnx files byte-identical.
 */
import { mulberry32 } from '@inferscope/core/load';

export class Prng {
  /** uniform in [0, 1) */
  readonly next: () => number;
  private spare: number | null = null;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** standard normal (Box-Muller; the second value of each pair is kept for the next call) */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    const u = 1 - this.next(); // (0, 1]: log(0) never happens
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** n values ~ N(0, std^2), rounded to float32 */
  normals(n: number, std: number): Float32Array {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = this.normal() * std;
    return out;
  }
}
