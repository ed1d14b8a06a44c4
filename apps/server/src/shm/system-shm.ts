/**
 * Triton's system shared memory extension: a client creates a POSIX shared-memory object (shm_open ->
 * /dev/shm/<key>), registers a window of it (offset, byte_size) under a region name, and then passes
 * tensors through it by naming the region in an input's or output's parameters instead of sending bytes.
 *
 * Keys are confined to /dev/shm (one path component, no links: a key can never name another file), the
 * object must be a regular file at least offset + byte_size long, and every access is bounds-checked
 * against the registered window. Node has no mmap, so reads and writes go through the open descriptor
 * (pread/pwrite): one copy, like a read from a socket, without the HTTP body.
 */
import { InferError, type ErrorCode } from '@inferscope/core';
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const SHM_ROOT = '/dev/shm';

export class ShmError extends InferError {
  constructor(message: string, code: ErrorCode = 'INVALID_ARG') {
    super(code, message);
  }
}

interface Region {
  name: string;
  key: string;
  offset: number;
  byteSize: number;
  fd: number;
}

export interface RegionStatus {
  name: string;
  key: string;
  offset: number;
  byte_size: number;
}

const KEY = /^\/?([A-Za-z0-9._-]{1,200})$/;
const uint = (v: unknown, what: string): number => {
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new ShmError(`Shared memory register request '${what}' must be an unsigned integer`);
  return v as number;
};

export class SystemSharedMemory {
  private readonly regions = new Map<string, Region>();

  constructor(private readonly root = SHM_ROOT, private readonly maxRegions = 1024) {}

  register(name: string, body: unknown): void {
    if (!name) throw new ShmError("'region name' is necessary to register system shared memory region");
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ShmError('Shared memory register request must be a JSON object');
    const b = body as Record<string, unknown>;
    if (b.key === undefined) throw new ShmError("Shared memory register request has no 'key' field");
    if (b.byte_size === undefined) throw new ShmError("Shared memory register request has no 'byte_size' field");
    if (typeof b.key !== 'string') throw new ShmError("Shared memory register request 'key' must be a string");
    const m = KEY.exec(b.key);
    if (!m || m[1] === '.' || m[1] === '..') throw new ShmError(`Unable to open shared memory region: '${b.key.slice(0, 80)}' (keys name an object in ${this.root})`);
    const offset = b.offset === undefined ? 0 : uint(b.offset, 'offset');
    const byteSize = uint(b.byte_size, 'byte_size');
    if (this.regions.has(name)) throw new ShmError(`shared memory region '${name}' already in manager`);
    if (this.regions.size >= this.maxRegions) throw new ShmError(`too many shared memory regions registered (at most ${this.maxRegions})`, 'UNAVAILABLE');
    let fd: number;
    try {
      // O_NOFOLLOW: a link planted in /dev/shm cannot redirect the server to another file.
      fd = openSync(join(this.root, m[1]), constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      throw new ShmError(`Unable to open shared memory region: '${b.key}': ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      throw new ShmError(`Unable to open shared memory region: '${b.key}' is not a shared memory object`);
    }
    if (offset + byteSize > st.size) {
      closeSync(fd);
      throw new ShmError(`failed to register shared memory region '${name}': offset ${offset} + byte_size ${byteSize} exceeds the object's ${st.size} bytes`);
    }
    this.regions.set(name, { name, key: b.key, offset, byteSize, fd });
  }

  unregister(name?: string): void {
    const names = name ? [name] : [...this.regions.keys()];
    for (const n of names) {
      const r = this.regions.get(n);
      if (!r) continue; // Triton: unregistering an unknown region succeeds
      closeSync(r.fd);
      this.regions.delete(n);
    }
  }

  status(name?: string): RegionStatus[] {
    if (name && !this.regions.has(name)) throw new ShmError(`Unable to find system shared memory region: '${name}'`);
    return [...this.regions.values()].filter((r) => !name || r.name === name).map((r) => ({ name: r.name, key: r.key, offset: r.offset, byte_size: r.byteSize }));
  }

  private window(name: string, offset: number, byteSize: number): Region {
    const r = this.regions.get(name);
    if (!r) throw new ShmError(`Unable to find system shared memory region: '${name}'`);
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(byteSize) || offset < 0 || byteSize < 0 || offset + byteSize > r.byteSize) {
      throw new ShmError(`Invalid offset + byte size for shared memory region: '${name}'`);
    }
    return r;
  }

  /** The bytes of [offset, offset+byteSize) of a region (relative to the registered window). */
  read(name: string, offset: number, byteSize: number): Buffer {
    const r = this.window(name, offset, byteSize);
    const out = Buffer.allocUnsafe(byteSize);
    let done = 0;
    while (done < byteSize) {
      const n = readSync(r.fd, out, done, byteSize - done, r.offset + offset + done);
      if (n === 0) throw new ShmError(`shared memory region '${name}' is shorter than registered`);
      done += n;
    }
    return out;
  }

  write(name: string, offset: number, data: Uint8Array, capacity: number): void {
    if (data.byteLength > capacity) {
      throw new ShmError(`shared memory size specified with the request for output is ${capacity} bytes, the output needs ${data.byteLength}`);
    }
    const r = this.window(name, offset, capacity);
    let done = 0;
    while (done < data.byteLength) done += writeSync(r.fd, data, done, data.byteLength - done, r.offset + offset + done);
  }

  close(): void {
    this.unregister();
  }
}
