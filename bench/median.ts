/** The median the benchmark scripts report: the middle of an odd count, the upper middle of an even one. */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
