// For process-group.test.ts: starts a group whose leader forks a grandchild, prints both pids, then dies
// of an uncaught exception (an unclean exit): the 'exit' hook must take the whole group with it.
import { spawnInGroup } from './process-group';

const child = spawnInGroup('sh', ['-c', 'sleep 600 & echo $!; sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] }, { label: 'test group', busy: () => '' });
child.stdout!.once('data', (d: Buffer) => {
  console.log(`${child.pid} ${d.toString().trim()}`);
  setImmediate(() => {
    throw new Error('an unclean exit');
  });
});
