/**
 * The standard deviation InferScope reports (perf's "Avg latency ... (standard deviation N usec)", as
 * perf_analyzer prints it): of the population of values measured, not an estimate of a wider one.
 */
export function standardDeviation(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i]! - mean) ** 2;
  return Math.sqrt(squares / n);
}
