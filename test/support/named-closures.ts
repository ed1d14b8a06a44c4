/**
 * Counts the functions the product's code names at run time. The sources run through tsx, whose transform
 * (esbuild's keepNames) names every closure bound to a name, `const f = () => ...` or `{ f: () => ... }`,
 * with Object.defineProperty(fn, 'name') each time the closure is made: about 0.24 µs, on a path that
 * runs per request (ARCHITECTURE.md, hot paths). Only names made from `apps/` and `packages/` count: a
 * client in the same process (Node's fetch is a bundle built the same way) and the tests are not the
 * server's cost. Import this module before any module it should watch: each module keeps the
 * Object.defineProperty it found when it was evaluated.
 */
/** where the product's modules are (a stack frame names its module by file URL) */
const PRODUCT = ['/apps/', '/packages/'];
let named = 0;
const define = Object.defineProperty;
Object.defineProperty = function countNames(target: object, key: PropertyKey, descriptor: PropertyDescriptor) {
  if (key === 'name' && typeof target === 'function') {
    // the frame of the module's __name helper: [0] 'Error', [1] this function, [2] __name
    const helper = new Error().stack?.split('\n')[2] ?? '';
    if (PRODUCT.some((dir) => helper.includes(dir))) named++;
  }
  return define(target, key, descriptor);
} as typeof Object.defineProperty;

/** functions the product's code named since the process started */
export const namedSoFar = (): number => named;
