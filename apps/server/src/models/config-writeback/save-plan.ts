/**
 * What a config save writes, computed from config.pbtxt AS IT IS ON DISK NOW, never from the text read
 * when the model loaded: edits made by hand since (a parameter, a comment, an outside tool's change) are
 * the user's and survive; only the live-changed fields whose value the file does not already hold are
 * edited, in the file's own text where possible (comments and layout survive; a comment the new value
 * would make false is updated or dropped), else the config engine's
 * printer writes the whole file. Either text is checked: it must parse back to exactly the edited config,
 * and every changed field must normalise to the live value. When the file already says what is live, the
 * plan is the file itself: nothing to write.
 */
import { InferError } from '@inferscope/core';
import { CONFIG_FILE } from '@inferscope/core/repository';
import type { ModelConfig } from '@inferscope/core/config';
import { parseLivePath, readLivePath } from '@inferscope/core/live-config';
import type { ConfigEngine } from '../runtime';
import { carryChangesToRaw } from '../live-config';
import { describeConfigError } from '../config-loader';
import { editConfigText } from './text-edit';

export interface SaveInput {
  model: string;
  /** config.pbtxt read just now; undefined when there is no file */
  current: string | undefined;
  /** the text read when the model loaded (undefined: it had no config.pbtxt and was auto-completed) */
  loadedText: string | undefined;
  /** the config as written at load (used only when there is no file, at load and now) */
  loadedRaw: ModelConfig;
  /** the normalised config at load: tells a field edited by hand since from one left alone */
  loadedConfig: ModelConfig | undefined;
  /** the live config of the version being saved */
  live: ModelConfig;
  /** live paths changed since load or the last save */
  changed: readonly string[];
}

export interface SavePlan {
  /** the file to write; equal to `current` when nothing changes */
  text: string;
  /** the live paths this save writes (those whose value the file does not hold yet) */
  pending: string[];
  /** the config as written after the save */
  edited: ModelConfig;
  /** what the user should know before writing (the file changed since load, a hand edit overwritten) */
  notes: string[];
}

/** The value at a changed path (the paths are the live-config module's: one parser for them all). */
export function pick(config: ModelConfig | undefined, path: string): unknown {
  const p = parseLivePath(path);
  // `dynamic_batching` itself only says a patch created the message; its fields are paths of their own.
  return p === undefined || p.kind === 'dynamic_batching' ? undefined : readLivePath(config, p);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function planSave(input: SaveInput, engine: ConfigEngine): SavePlan {
  const { model, current, live } = input;
  if (current === undefined && input.loadedText !== undefined) {
    // Recreating it from the copy read at load would bring back a file someone removed on purpose.
    throw new InferError('NOT_FOUND', `refusing to save: ${CONFIG_FILE} of '${model}' was removed since the model loaded; nothing was written`);
  }
  let base: ModelConfig;
  try {
    base = current === undefined ? input.loadedRaw : engine.parse(current);
  } catch (err) {
    throw new InferError('INVALID_ARG', `refusing to save '${model}': the file on disk does not parse now (${describeConfigError(err)}); fix it first, nothing was written`);
  }
  checkGroupsLineUp(input, base);
  const onDisk = normalised(base, model, engine);
  // A field the file already holds at its live value needs no edit (a second save finds none at all).
  const pending = input.changed.filter((p) => onDisk === undefined || !same(pick(onDisk, p), pick(live, p)));
  const notes = changedSinceLoad(input, onDisk, pending);
  if (pending.length === 0) return { text: current ?? '', pending, edited: base, notes };

  const edited = carryChangesToRaw(base, live, pending);
  const commentNotes: string[] = [];
  const inPlace = current === undefined ? undefined : editConfigText(current, pending.map((p) => ({ path: p, value: pick(live, p) })), commentNotes);
  let text = inPlace ?? engine.print(edited);
  let problem = checkReadsBack(text, edited, model, live, pending, engine);
  if (!problem && inPlace !== undefined) notes.push(...commentNotes);
  if (problem && inPlace !== undefined) {
    text = engine.print(edited);
    problem = checkReadsBack(text, edited, model, live, pending, engine);
    if (!problem) notes.push(`the live values could not be placed in the file's own text: it is printed whole, without its comments (see the diff; the .bak keeps the original)`);
  }
  if (problem) throw new InferError('INTERNAL', `refusing to save: ${problem}`);
  return { text, pending, edited, notes };
}

/**
 * A live instance count names its group by its index at load. If the file's groups were reordered,
 * replaced or removed by hand since, that index is another group (or none) now, and writing the count
 * there would change a group nobody changed: refused, with both groups named.
 */
function checkGroupsLineUp(input: SaveInput, base: ModelConfig): void {
  if (input.loadedText === undefined) return;
  const identity = (g: object | undefined) => (g === undefined ? null : sortKeys({ ...g, count: undefined }));
  for (const p of input.changed) {
    const path = parseLivePath(p);
    if (path?.kind !== 'instance_count') continue;
    const atLoad = JSON.stringify(identity(input.loadedRaw.instance_group?.[path.group]));
    const now = JSON.stringify(identity(base.instance_group?.[path.group]));
    if (atLoad !== now) {
      throw new InferError('INVALID_ARG', `refusing to save '${input.model}': instance_group[${path.group}] in ${CONFIG_FILE} is not the group whose count was changed live (the groups were edited since the model loaded: ${now} there now, ${atLoad} at load); nothing was written: reload the model, or set that count in the file by hand`);
    }
  }
}

function normalised(config: ModelConfig, model: string, engine: ConfigEngine): ModelConfig | undefined {
  try {
    return engine.normalize(config, { modelName: model, gpuCount: 0 });
  } catch {
    return undefined; // then every changed path is written, and the read-back check judges the result
  }
}

/** Says when the file was edited since load: those edits are kept, and a hand-set field about to be overwritten is named. */
function changedSinceLoad(input: SaveInput, onDisk: ModelConfig | undefined, pending: readonly string[]): string[] {
  if (input.current !== undefined && input.loadedText === undefined) {
    return [`${CONFIG_FILE} was created since the model loaded (auto-completed without one): the save edits it; its other settings are not live until the model reloads`];
  }
  if (input.current === undefined || input.current === input.loadedText) return [];
  const notes = [`${CONFIG_FILE} was edited on disk since the model loaded: the save keeps those edits (they are not live until the model reloads)`];
  for (const p of pending) {
    const atLoad = pick(input.loadedConfig, p);
    const now = pick(onDisk, p);
    if (onDisk !== undefined && input.loadedConfig !== undefined && !same(atLoad, now)) {
      notes.push(`'${p}' was changed by hand from ${JSON.stringify(atLoad)} to ${JSON.stringify(now)}; saving writes the live value ${JSON.stringify(pick(input.live, p))}`);
    }
  }
  return notes;
}

/** The check that makes saving safe: what we write reads back as what is live. Returns the problem, if any. */
function checkReadsBack(text: string, edited: ModelConfig, model: string, live: ModelConfig, changed: readonly string[], engine: ConfigEngine): string | undefined {
  let reparsed: ModelConfig;
  try {
    reparsed = engine.parse(text);
  } catch (err) {
    return `the new config text does not parse back (${(err as Error).message})`;
  }
  if (JSON.stringify(sortKeys(reparsed)) !== JSON.stringify(sortKeys(edited))) return 'the new config text does not parse back to the live config';
  const back = engine.normalize(reparsed, { modelName: model, gpuCount: 0 });
  for (const p of changed) {
    if (!same(pick(back, p), pick(live, p))) {
      return `'${p}' would read back as ${JSON.stringify(pick(back, p))}, live is ${JSON.stringify(pick(live, p))}`;
    }
  }
  return undefined;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  }
  return v;
}
