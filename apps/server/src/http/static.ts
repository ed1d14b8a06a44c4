/**
 * Serves the built dashboard (apps/web/dist) at `/`. @fastify/static is not a dependency and the
 * dashboard is a handful of files, so this is a small file server: content types by extension, no path
 * traversal (the resolved path must stay inside the dist folder), and a placeholder page when the
 * dashboard has not been built yet. Only the dashboard's own paths answer: `/` (and the client-side routes
 * listed in CLIENT_ROUTES) and the files of the build. Anything else is 404, so a probe such as `/healthz`
 * never "passes" on the dashboard page (Triton answers 404 there too).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errors } from '@inferscope/core';

export const DEFAULT_DIST = resolve(fileURLToPath(new URL('../../../web/dist', import.meta.url)));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Paths owned by the API and the live gateway: never answered with the dashboard. */
const RESERVED = ['/v2', '/socket.io', '/metrics'];

/**
 * The dashboard's client-side routes, answered with index.html. The dashboard keeps its state in the query
 * string (?view=&model=...), so its only route is `/`; a new route must be added here explicitly.
 */
export const CLIENT_ROUTES: readonly string[] = ['/'];

export function placeholderPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>InferScope</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#eee;padding:0 .3em}</style>
</head><body><h1>InferScope</h1>
<p>The server is running, but the dashboard has not been built yet.</p>
<p>Build it with <code>npm run build:web</code> (or start with <code>npm start</code>, which builds it), then reload this page.</p>
<p>The KServe v2 API is live: try <a href="/v2">/v2</a> or <code>POST /v2/repository/index</code>.</p>
</body></html>`;
}

/** Maps a URL path to a file inside `root`, or undefined when it would leave it. */
export function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const full = resolve(join(root, decoded));
  return full === root || full.startsWith(root + sep) ? full : undefined;
}

async function sendFile(reply: FastifyReply, file: string, size: number): Promise<FastifyReply> {
  const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  // Vite's assets carry a content hash in their name: cache them; never cache index.html.
  const cache = file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache';
  return reply
    .code(200)
    .header('content-type', type)
    .header('content-length', String(size))
    .header('cache-control', cache)
    .header('x-content-type-options', 'nosniff')
    .send(createReadStream(file));
}

export function registerStaticRoutes(app: FastifyInstance, distDir: string = DEFAULT_DIST): void {
  const root = resolve(distDir);
  const handler = async (req: import('fastify').FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0];
    // API paths never fall through to the dashboard: the not-found handler answers them (404 or 405).
    if (RESERVED.some((p) => path === p || path.startsWith(p + '/'))) return reply.callNotFound();
    const route = CLIENT_ROUTES.includes(path);
    const index = join(root, 'index.html');
    const indexStat = await stat(index).catch(() => undefined);
    if (!indexStat && route) {
      return reply.code(200).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(placeholderPage());
    }
    if (indexStat && route) return sendFile(reply, index, indexStat.size);
    const file = resolveInside(root, path);
    const s = file ? await stat(file).catch(() => undefined) : undefined;
    if (file && s?.isFile()) return sendFile(reply, file, s.size);
    throw errors.ROUTE_NOT_FOUND();
  };
  app.get('/', handler);
  app.get('/*', handler);
}
