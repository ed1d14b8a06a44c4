/**
 * One colour per generated sequence, the same in the token timeline and the KV block map, so a class can
 * follow one sequence from its slot to its blocks. Derived from the id alone (no shared state between the
 * two components): the server numbers its sequences (`<prefix>17`), so a trailing number picks the colour
 * and sequences admitted one after another differ; any other id is hashed.
 */
import { MODEL_PALETTE } from '../theme';

export function seqColour(id: string): string {
  const n = /(\d+)$/.exec(id);
  let k: number;
  if (n) k = Number(n[1]!.slice(-6));
  else {
    k = 2166136261; // FNV-1a
    for (let i = 0; i < id.length; i++) k = Math.imul(k ^ id.charCodeAt(i), 16777619) >>> 0;
  }
  return MODEL_PALETTE[k % MODEL_PALETTE.length]!;
}
