/**
 * Reading files the server did not write (config.pbtxt, model files, warmup data, traces, recordings):
 * only regular files, never more than a cap.
 *
 * Why: a FIFO opened for reading blocks in open() until a writer appears, and a read of it blocks until
 * data comes; either one parks a libuv thread-pool thread for good. Four of those (the pool's default size)
 * and every fs call of the process waits: scans, loads, even static files. A symlink to /dev/zero or a
 * device reads forever and fills memory. So: open with O_NONBLOCK (a FIFO's open returns at once), check
 * with fstat on the opened descriptor (no window between the check and the read) that it is a regular
 * file within the cap, then read exactly its size. Regular files ignore O_NONBLOCK, so nothing else changes.
 *
 * Symlinks are followed (repositories share weights through links, as Triton allows); what counts is what
 * the link points at.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

const MiB = 1024 * 1024;

/** Caps by kind of file; each is far above what normal use reads (a config of a few KiB, a model of MBs). */
export const READ_LIMITS = {
  /** config.pbtxt: Triton configs are a few KiB; 4 MiB leaves room for huge ensembles */
  config: 4 * MiB,
  /** a trace (recording) to replay: a long recording at 1k req/s is ~100 B per arrival, ~100 MiB/15 min */
  trace: 256 * MiB,
  /** model files parsed in-process (ONNX signature): protobuf cannot go past 2 GiB anyway */
  model: 2048 * MiB,
  /** warmup input_data_file: one sample batch */
  warmup: 256 * MiB,
} as const;

export class UnsafeFileError extends Error {
  constructor(
    readonly path: string,
    readonly code: 'ENOTREG' | 'ETOOBIG',
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeFileError';
  }
}

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

function kindOf(s: Stats): string {
  if (s.isFIFO()) return 'a FIFO';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  if (s.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/** Throws UnsafeFileError unless `s` is a regular file of at most `maxBytes`. */
export function checkRegular(path: string, s: Stats, maxBytes: number): void {
  if (!s.isFile()) throw new UnsafeFileError(path, 'ENOTREG', `'${path}' is ${kindOf(s)}, only regular files are read`);
  if (s.size > maxBytes) {
    throw new UnsafeFileError(path, 'ETOOBIG', `'${path}' is ${s.size} bytes, more than the ${maxBytes} bytes allowed for this file`);
  }
}

export interface ReadOptions {
  /**
   * false: a symlink itself is refused (O_NOFOLLOW), for folders the server owns (recordings), where a
   * link can only be a plant pointing at someone else's file.
   */
  followLinks?: boolean;
}

async function openChecked(path: string, opts: ReadOptions) {
  try {
    return await open(path, opts.followLinks === false ? FLAGS | constants.O_NOFOLLOW : FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP' && opts.followLinks === false) {
      throw new UnsafeFileError(path, 'ENOTREG', `'${path}' is a symbolic link, only regular files are read here`);
    }
    throw err;
  }
}

/** Reads a regular file of at most `maxBytes` (async; the thread pool is never parked). */
export async function readRegularFile(path: string, maxBytes: number, opts: ReadOptions = {}): Promise<Buffer> {
  return (await readRegularFileStat(path, maxBytes, opts)).data;
}

/** The same, with the fstat of the descriptor read (its mode, size, owner). */
export async function readRegularFileStat(path: string, maxBytes: number, opts: ReadOptions = {}): Promise<{ data: Buffer; stats: Stats }> {
  const fh = await openChecked(path, opts);
  try {
    const s = await fh.stat();
    checkRegular(path, s, maxBytes);
    // Read what fstat promised, and one byte more to notice a file that grew meanwhile.
    const buf = Buffer.allocUnsafe(s.size + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got > s.size) throw new UnsafeFileError(path, 'ETOOBIG', `'${path}' grew while it was read`);
    return { data: buf.subarray(0, got), stats: s };
  } finally {
    await fh.close();
  }
}

export async function readRegularText(path: string, maxBytes: number, opts: ReadOptions = {}): Promise<string> {
  return (await readRegularFile(path, maxBytes, opts)).toString('utf8');
}

/** The same, synchronous, for code paths that are synchronous already (auto-complete, warmup). */
export function readRegularFileSync(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, FLAGS);
  try {
    const s = fstatSync(fd);
    checkRegular(path, s, maxBytes);
    const buf = Buffer.allocUnsafe(s.size + 1);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got > s.size) throw new UnsafeFileError(path, 'ETOOBIG', `'${path}' grew while it was read`);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** Throws unless `path` (links followed) is a regular file within the cap; for files another library opens. */
export function assertRegularFileSync(path: string, maxBytes: number): Stats {
  const fd = openSync(path, FLAGS);
  try {
    const s = fstatSync(fd);
    checkRegular(path, s, maxBytes);
    return s;
  } finally {
    closeSync(fd);
  }
}
