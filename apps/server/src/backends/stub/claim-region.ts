/**
 * The claim words of one stub process: how a batch written to the stub ahead of time (behind the one it
 * runs) can still be taken back synchronously, so that the stub begins its next batch the moment the
 * running one ends, without waiting for the server to answer and write it (measured: that wait, and the
 * cold caches of a process that slept through it, cost the stub 30-100% more CPU per batch).
 *
 * A 128-byte file, created and unlinked at once (nothing is left in /dev/shm, whatever happens to either
 * process), open in both: the stub gets the descriptor as its fd 4. Slot s = id % CLAIM_SLOTS holds one
 * byte per side, the batch's generation (1 + floor(id / CLAIM_SLOTS) % 255, never 0): bytes [0, 64) are
 * written only by the server ("taken back"), bytes [64, 128) only by the stub ("begun").
 *
 * Neither side can compare-and-swap (Node cannot map a file), so the decision is Dekker's: each writes its
 * own byte, then reads the other's. Both write with pwrite and read with pread: on tmpfs a write copies
 * under the page's lock and a read takes that lock before it copies, so the two writes are ordered by
 * that lock and at least one side sees the other's byte (a single byte never tears).
 * - the server (withdraw): writes "taken back", reads "begun": not begun -> true, the batch is the
 *   scheduler's again; begun -> false, it runs here.
 * - the stub (before each batch): writes "begun", reads "taken back": not taken back -> it runs; else
 *   the server may or may not have seen "begun" first, so the stub asks (`claim`, answered by the
 *   server's own record of what withdraw returned) and skips the batch only when told.
 * A stale byte from a batch CLAIM_SLOTS * 255 ids earlier can only cause a needless ask or a refused
 * withdraw, never a batch that runs twice or not at all. A batch may only be taken back while every batch
 * the stub has not passed yet is within CLAIM_SLOTS ids of it (the caller checks), so no slot is shared.
 */
import { closeSync, existsSync, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const CLAIM_SLOTS = 64;
/** The fd the stub finds its claim region on (fd 3 is the frame channel). */
export const CLAIM_FD = 4;

/** Which generation byte marks batch `id` in its slot (inferscope_stub/claims.py computes the same). */
export const claimGeneration = (id: number): number => 1 + (Math.floor(id / CLAIM_SLOTS) % 255);

export class ClaimRegion {
  readonly fd: number;
  private readonly one = Buffer.alloc(1);
  private closed = false;

  constructor() {
    const dir = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
    const path = join(dir, `inferscope-claims-${process.pid}-${randomBytes(6).toString('hex')}`);
    this.fd = openSync(path, 'wx+', 0o600);
    try {
      unlinkSync(path);
      ftruncateSync(this.fd, 2 * CLAIM_SLOTS);
    } catch (err) {
      closeSync(this.fd);
      throw err;
    }
  }

  /** Marks batch `id` taken back; true when the stub had not begun it (it never will without asking). */
  takeBack(id: number): boolean {
    if (this.closed) return false;
    const slot = id % CLAIM_SLOTS;
    const gen = claimGeneration(id);
    this.one[0] = gen;
    writeSync(this.fd, this.one, 0, 1, slot);
    readSync(this.fd, this.one, 0, 1, CLAIM_SLOTS + slot);
    return this.one[0] !== gen;
  }

  /** Whether the stub has marked batch `id` begun (diagnostics and tests). */
  begun(id: number): boolean {
    if (this.closed) return false;
    readSync(this.fd, this.one, 0, 1, CLAIM_SLOTS + (id % CLAIM_SLOTS));
    return this.one[0] === claimGeneration(id);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
