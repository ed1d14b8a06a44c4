/**
 * The server's own count of a model's requests (Triton's statistics), to check that a load generator's
 * "succeeded" really was a success: h2load sees HTTP 200 for every gRPC call (an error travels in the
 * grpc-status trailer), and wrk leaves requests in running batches when it stops.
 */
export interface ServerCounts { success: number; fail: number; inferences: number; executions: number }

export async function serverCounts(url: string, model: string): Promise<ServerCounts> {
  const s = await (await fetch(`${url}/v2/models/${model}/stats`)).json() as { model_stats: Array<{ inference_count: number; execution_count: number; inference_stats: { success: { count: number }; fail: { count: number } } }> };
  const m = s.model_stats[0]!;
  return { success: m.inference_stats.success.count, fail: m.inference_stats.fail.count, inferences: m.inference_count, executions: m.execution_count };
}

/** The counts once the previous run's stragglers are answered (three equal readings 100 ms apart). */
export async function settledCounts(url: string, model: string): Promise<ServerCounts> {
  let last = await serverCounts(url, model);
  for (let stable = 0; stable < 3; ) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await serverCounts(url, model);
    stable = now.success === last.success && now.fail === last.fail ? stable + 1 : 0;
    last = now;
  }
  return last;
}
