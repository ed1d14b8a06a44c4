/**
 * Helpers for the teaching-mode browser tests: open a lesson in a language, wait for its experiment, and
 * read the numbers the page shows (table cells as the reader sees them: "12.1k", "1.52 ms").
 */
import type { Page } from 'playwright-core';

export async function openLesson(page: Page, base: string, lesson: string, lang: string, extra = ''): Promise<void> {
  await page.goto(`${base}?mode=teach&lesson=${lesson}&lang=${lang}${extra}`);
  await page.waitForSelector('[data-testid=teach-play]:not([disabled])', { timeout: 30_000 });
  if (await page.locator('[data-testid=experiment]').count()) await page.waitForSelector('[data-testid=experiment][data-state=done]', { timeout: 60_000 });
}

/** "12.1k" -> 12100, "5305" -> 5305, "3.13" -> 3.13 */
export function parseRate(text: string): number {
  const m = /(-?[\d.]+)\s*(k)?/.exec(text.trim());
  if (!m) throw new Error(`not a number: "${text}"`);
  return Number(m[1]) * (m[2] ? 1000 : 1);
}

/** "193 µs" -> 193, "1.52 ms" -> 1520, "0.6 s" -> 600000 */
export function parseDuration(text: string): number {
  const m = /(-?[\d.]+)\s*(µs|ms|s)/.exec(text.trim());
  if (!m) throw new Error(`not a duration: "${text}"`);
  return Number(m[1]) * (m[2] === 's' ? 1e6 : m[2] === 'ms' ? 1e3 : 1);
}

/** One column of an experiment table, as numbers, in row order. */
export async function column(page: Page, table: string, col: 'throughput' | 'batch' | 'p50' | 'p99' | 'busy'): Promise<number[]> {
  const cells = await page.locator(`[data-testid=exp-${table}] [data-testid=exp-${table}-row] [data-col=${col}]`).allTextContents();
  if (cells.length === 0) throw new Error(`table ${table} shows no rows`);
  return cells.map((t) => (col === 'throughput' || col === 'batch' ? parseRate(t) : parseDuration(t)));
}

/**
 * English words left in a Chinese page: visible text outside [data-verbatim] (the server's own messages,
 * quoted as Triton words them; the control messages echoed as sent) and outside <pre>/<code> (config.pbtxt
 * as printed), and options that show their own value (preset and model names), minus identifiers (anything with _ . / digits, ALL CAPS), model, backend and
 * product names, and units.
 */
export const ALLOWED = new Set([
  'InferScope', 'English', 'Triton', 'ONNX', 'gRPC', 'Runtime', 'TensorRT', 'PyTorch', 'TorchScript', 'torch', 'Prometheus', 'KServe', 'GPU', 'CPU', 'MLP', 'CNN',
  'onnxruntime', 'tensorrt', 'pytorch', 'python', 'Python', 'pbtxt', 'dims', 'name', 'platform', 'backend', 'npx', 'inferscope', 'perf',
  'calibrate', 'protobuf', 'cpu', 'ensemble', 'direct', 'oldest', 'accel', 'priority', 'TensorRT-LLM', 'vLLM', 'Orca', 'PagedAttention', 'KiB', 'MiB', 'GiB', 'now', 'plan', 'config', 'max_queue_delay', 'input', 'output', 'logits', 'image', 'data_type', 'dim',
]);
export async function englishWords(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => {
    const clone = document.body.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('[data-verbatim], pre, code, textarea, script, style').forEach((n) => n.remove());
    // options that show their own value are names (scenario presets, model keys), not prose
    clone.querySelectorAll('option').forEach((o) => {
      if (o.textContent === (o as HTMLOptionElement).value) o.remove();
    });
    // innerText of a detached node has no layout: use textContent of the visible page's elements instead
    return clone.textContent ?? '';
  });
  return englishWordsIn(text);
}

/** The English words of a text (canvas labels, a page's prose), by the same rules as englishWords. */
export function englishWordsIn(text: string): string[] {
  // Input syntax shown as an example is what the user types, not prose: `key=value` pairs (the A/B patch
  // fields) and value lists that contain numbers (`none,max,8+16`).
  const prose = text.replace(/\b[a-z_]+=\S*/g, ' ').replace(/[A-Za-z0-9+]*(?:,[A-Za-z0-9+]+)+/g, (m) => (/\d/.test(m) ? ' ' : m));
  const words = prose.match(/\/?[A-Za-z][A-Za-z0-9_./:<>-]*/g) ?? [];
  return [...new Set(words.filter((w) => {
    const bare = w.replace(/[.:]+$/, '');
    if (bare.length < 3) return false;
    if (/[_./\d<>]/.test(bare) || /^[A-Z0-9_]+$/.test(bare)) return false;
    return !ALLOWED.has(bare);
  }))];
}
