/**
 * A seeded pseudo-random generator for model weights and test data. Mulberry32: tiny, fast, and the
 * same sequence on every machine, which is what makes the generated .onnx files byte-identical.
 */
export class Prng {
  private state: number;
  private spare: number | null = null;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** uniform in [0, 1) */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
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
