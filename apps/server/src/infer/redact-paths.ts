/**
 * No server path leaves in an error. Messages that reach a client (HTTP and gRPC error bodies, live
 * control acknowledgements, a model's failure reason in the repository index) may carry what the
 * filesystem or a backend said: Node's fs errors end in `, open '/tmp/inferscope-load-…/m/1/AAAA…'`, a
 * model load failure names its file in the repository. Those tell a client where the server keeps its
 * files (its temporary folders, its repository, its working directory): information for an attacker and
 * of no use to the client. So every such message goes through `publicMessage`, the one exit:
 *
 * - the trailer Node's fs errors add (`, <syscall> '<absolute path>'`, with `-> '<path>'` for rename and
 *   link) is dropped: "ENAMETOOLONG: name too long, open '/tmp/…'" -> "ENAMETOOLONG: name too long";
 * - any other absolute path under a root the server knows (each model repository, the temporary folder,
 *   the working directory, the home folder; symlinked and resolved spellings) becomes that root's label
 *   plus the rest, e.g. `<repository>/m/config.pbtxt`: what the client named stays readable, where it
 *   lives on the server does not.
 *
 * Then the message is capped (json-guard.ts): it may quote what the client sent.
 */
import { realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { resolve } from 'node:path';

/** root -> label; longest roots are replaced first, so a repository inside the temporary folder keeps its own label */
const roots = new Map<string, string>();
let ordered: Array<[RegExp, string]> = [];

function spellings(path: string): string[] {
  const out = [resolve(path)];
  try {
    out.push(realpathSync(path));
  } catch {
    // a root that does not exist (yet) has only the spelling given
  }
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Registers a server folder whose absolute path must not reach a client; `label` replaces it. */
export function registerServerPath(path: string, label: string): void {
  for (const p of spellings(path)) {
    // '/' (a container's working directory) would turn every slash into a label
    if (p.split('/').filter(Boolean).length === 0) continue;
    if (!roots.has(p)) roots.set(p, label);
  }
  ordered = [...roots]
    .sort(([a], [b]) => b.length - a.length)
    // a root only where a path component ends: '/root' is not a prefix of '/rootfs'
    .map(([p, l]) => [new RegExp(`${escape(p)}(?=[/\\s'"\`:,;)\\]]|$)`, 'g'), l]);
}

registerServerPath(tmpdir(), '<tmp>');
registerServerPath(process.cwd(), '<cwd>');
registerServerPath(homedir(), '<home>');

/** Node's fs error trailer, only for absolute paths (a relative one is what the client sent). */
const FS_TRAILER = /, [a-z_]+ '\/[^']*'(?: -> '[^']*')?/g;

export function redactPaths(message: string): string {
  let out = message.replace(FS_TRAILER, '');
  for (const [re, label] of ordered) out = out.replace(re, label);
  return out;
}

/** The form of every error message sent to a client: no server path, at most MAX_MESSAGE_CHARS. */
export function publicMessage(message: string): string {
  return capMessage(redactPaths(message));
}

/**
 * Errors quote what the client sent (a name, a value): a 20 MiB string in a tensor came back in a 20 MiB
 * error. Every error message is capped where it leaves.
 */
export const MAX_MESSAGE_CHARS = 1000;

/** A message cut to MAX_MESSAGE_CHARS with an ellipsis and how much was left out. */
export function capMessage(message: string, max = MAX_MESSAGE_CHARS): string {
  if (message.length <= max) return message;
  return `${message.slice(0, max)}... (${message.length - max} more characters)`;
}
