/** Background inference traffic for browser tests: a few concurrent clients, answers awaited, until stopped. */
const body = JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: Array(784).fill(0.1) }] });

/** Sends requests to mlp_classifier's given versions (one client per entry) until stopped. */
export function traffic(url: string, versions: string[] = ['1', '2', '1', '2']): { stop(): Promise<void>; sent: () => number } {
  let running = true;
  let sent = 0;
  const worker = async (version: string) => {
    while (running) {
      const r = await fetch(`${url}/v2/models/mlp_classifier/versions/${version}/infer`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      await r.arrayBuffer();
      sent++;
    }
  };
  const all = Promise.all(versions.map(worker));
  return { stop: async () => { running = false; await all; }, sent: () => sent };
}
