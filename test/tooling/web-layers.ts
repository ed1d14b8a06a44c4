// The dashboard's folder order, lowest first (checked by folder-layers.test.ts; the map in
// ARCHITECTURE.md says what each folder holds). A folder imports only folders of lower layers.
import type { AppLayers } from './folder-layers.ts';

export const layers: AppLayers = {
  app: 'apps/web/src',
  layers: [
    ['i18n', 'platform'], // UI text and the language switch; the browser-test hooks
    ['store'], // the vanilla store, the live model and its rings, the URL state
    ['charts', 'live'], // canvas drawing and chart frames; the socket, the control channel, the frame clock
    ['controls'], // the side panel's live changes, load runs, A/B and autotune, and the target they act on
    ['sweep'], // the sweep panel (uses the controls' target and save)
    ['fleet', 'teach', 'ui', 'views'], // pages: fleet, teaching mode, header, the four live views
    ['.'], // App.tsx and main.tsx: the composition root
  ],
};
