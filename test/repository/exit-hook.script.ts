// Run as a child by load-folders.test.ts: a store holding one attached folder, then process.exit without
// any close (as `serve` does on a second Ctrl-C). Prints the folder; the exit hook must have removed it.
import { PrivateFolders } from '../../apps/server/src/repository/private-folders';

const folders = new PrivateFolders();
const folder = await folders.create();
await folders.attach('m', folder);
const pending = await folders.create(); // still being written when the process ends
console.log(JSON.stringify({ folder, pending }));
process.exit(0);
