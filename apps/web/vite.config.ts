import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// The server serves apps/web/dist at `/`, and the dev server proxies the live socket and HTTP API to it,
// so `npm run dev -w @inferscope/web` works against `npx inferscope serve` on 127.0.0.1:8000.
export default defineConfig({
  plugins: [react(), tailwindcss()],
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/socket.io': { target: 'http://127.0.0.1:8000', ws: true },
      '/v2': 'http://127.0.0.1:8000',
      '/metrics': 'http://127.0.0.1:8000',
    },
  },
});
