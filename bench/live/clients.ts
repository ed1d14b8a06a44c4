/**
 * Child process for the live bench: connects N socket.io clients to URL and counts what they receive.
 * Prints a JSON line of counters whenever it reads a line on stdin; exits on 'quit'.
 */
import { io } from 'socket.io-client';
import { createInterface } from 'node:readline';

const [url, nArg] = process.argv.slice(2);
const counters = { frames: 0, events: 0, dropped: 0, perEvent: 0, connected: 0 };
for (let i = 0; i < Number(nArg); i++) {
  const s = io(url, { transports: ['websocket'], reconnection: false });
  s.on('connect', () => counters.connected++);
  s.on('frame', (f: { events: unknown[]; dropped: number }) => {
    counters.frames++;
    counters.events += f.events.length;
    counters.dropped += f.dropped;
  });
  s.on('event', () => counters.perEvent++);
}
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'quit') process.exit(0);
  process.stdout.write(JSON.stringify(counters) + '\n');
});
