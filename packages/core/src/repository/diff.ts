/**
 * Poll-mode change detection as a pure diff of two fingerprint maps (model name -> fingerprint).
 * The server computes fingerprints from the disk (config and version files: path, size, mtime); here we
 * only decide what changed, so a model whose files did not change is never touched by a poll.
 */
export interface RepositoryDiff {
  added: string[];
  removed: string[];
  modified: string[];
  unchanged: string[];
}

export function diffRepository(previous: ReadonlyMap<string, string>, next: ReadonlyMap<string, string>): RepositoryDiff {
  const diff: RepositoryDiff = { added: [], removed: [], modified: [], unchanged: [] };
  for (const [name, fp] of next) {
    const old = previous.get(name);
    if (old === undefined) diff.added.push(name);
    else if (old !== fp) diff.modified.push(name);
    else diff.unchanged.push(name);
  }
  for (const name of previous.keys()) if (!next.has(name)) diff.removed.push(name);
  for (const list of Object.values(diff)) list.sort();
  return diff;
}
