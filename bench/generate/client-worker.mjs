// Starts the bench's client worker (client-worker.ts) through tsx's loader: a worker thread does not
// inherit the loader `npx tsx` registered in the main thread.
import { register } from 'tsx/esm/api';

register();
await import('./client-worker.ts');
