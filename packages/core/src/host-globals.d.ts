// The only host APIs core may use: present in Node and in browsers alike. Core's tsconfig loads neither
// node types nor the DOM library, so anything not declared here (node:* modules, document, Buffer,
// process) is a type error in core. Declarations are the subset core calls, with the hosts' signatures.

declare function setTimeout(callback: () => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;
declare function structuredClone<T>(value: T): T;

declare var performance: { now(): number };

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}
