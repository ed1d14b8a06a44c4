/**
 * 64-bit FNV-1a over bytes, in pure TypeScript (core may not use node:crypto). The hash only picks a bucket:
 * the cache compares the whole key on every hit, so a collision costs a comparison, never a wrong answer.
 *
 * 64 bits are carried as two unsigned 32-bit halves because JavaScript numbers are exact only to 2^53, and
 * BigInt arithmetic per byte would make hashing a large input tensor many times slower.
 */

const OFFSET_HI = 0xcbf29ce4;
const OFFSET_LO = 0x84222325;
/** FNV's 64-bit prime is 2^40 + 0x1b3: multiplying is `h * 0x1b3 + (h << 40)` */
const PRIME_LOW = 0x1b3;
const TWO_32 = 0x1_0000_0000;

/** The running state of a hash, so the key's parts can be fed one after another without joining them. */
export class Fnv1a64 {
  private hi = OFFSET_HI;
  private lo = OFFSET_LO;

  update(bytes: Uint8Array): this {
    let hi = this.hi;
    let lo = this.lo;
    for (let i = 0; i < bytes.length; i++) {
      lo = (lo ^ bytes[i]) >>> 0;
      // lo * 0x1b3 stays below 2^41: exact in a double, its carry goes to the high half
      const low = lo * PRIME_LOW;
      const carry = Math.floor(low / TWO_32);
      hi = (Math.imul(hi, PRIME_LOW) + (lo << 8) + carry) >>> 0;
      lo = low >>> 0;
    }
    this.hi = hi;
    this.lo = lo;
    return this;
  }

  /** 16 lowercase hex digits */
  hex(): string {
    return this.hi.toString(16).padStart(8, '0') + this.lo.toString(16).padStart(8, '0');
  }
}

export function fnv1a64(bytes: Uint8Array): string {
  return new Fnv1a64().update(bytes).hex();
}
