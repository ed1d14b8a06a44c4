// The load generator thread's entry. Worker threads do not inherit the main thread's `--import tsx`
// module hooks, so the thread registers tsx itself before loading the TypeScript generator.
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
