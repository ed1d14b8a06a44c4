/**
 * Triton's repository load / unload, shared by HTTP (http/repository.ts) and gRPC (grpc/service.ts):
 * the request's parameters (plain values: JSON, or ModelRepositoryParameter oneofs) are read once here.
 *
 * - `config`: a JSON ModelConfig that replaces the model's config.pbtxt for this load.
 * - `file:<path>`: the model folder's files (base64 over HTTP, bytes over gRPC), e.g. `file:1/model.onnx`.
 *   With them the model is loaded from a private folder (mkdtemp, mode 0700) holding only these files and
 *   the `config` (required then, as in Triton); paths are relative, their segments plain names, and every
 *   file lands inside that folder. The folder is removed when the model is loaded again or unloaded, and
 *   with the server (repository/private-folders.ts owns their lifetime).
 * - Unloading a model that is not loaded succeeds and changes nothing (Triton's qa/L0_lifecycle); the
 *   manager itself refuses it, for the dashboard's control.
 */
import { InferError, errors } from '@inferscope/core';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { ConfigJsonError, modelConfigFromJson, printModelConfig } from '@inferscope/core/config';
import type { ModelManager } from '../models/model-manager';
import { scanModelFolder, type ScannedModel } from '../repository/scan';
import type { PrivateFolders } from '../repository/private-folders';
import { invalid } from '../infer/errors';

export type LoadParameters = Record<string, unknown>;

let overrideSeq = 0;

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const MAX_FILES = 1000;

/** `file:` path -> its segments, or a refusal: relative, no '.'/'..', no separators but '/', plain names. */
export function checkOverridePath(path: string): string[] {
  const segments = path.split('/');
  if (path === '' || path.length > 1024 || segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) {
    throw invalid(`invalid file override path '${path.slice(0, 200)}': use a relative path of plain names (letters, digits, '.', '_', '-') separated by '/'`);
  }
  return segments;
}

function configText(raw: unknown, name: string): string {
  if (typeof raw !== 'string') throw invalid("Unable to parse 'config': expected a JSON string");
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (err) {
    throw invalid(`failed to parse the model config override: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('the model config override must be a JSON object');
  // Read strictly as Triton's JsonToModelConfig does (unknown fields and wrong types refused at every
  // level); the printed text then goes through the same parser, validation and auto-complete as a file.
  let config;
  try {
    config = modelConfigFromJson(doc);
  } catch (err) {
    if (err instanceof ConfigJsonError) throw invalid(`Invalid config override: ${err.message}`);
    throw err;
  }
  return printModelConfig({ ...config, name: config.name || name });
}

function fileBytes(key: string, value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value)) return Buffer.from(value, 'base64');
  throw invalid(`Unable to parse '${key}': expected base64 file contents`);
}

async function writePrivateFolder(folders: PrivateFolders, name: string, config: string, files: Array<[string[], Uint8Array]>): Promise<string> {
  const root = await folders.create();
  const modelDir = join(root, name);
  try {
    await mkdir(modelDir, { mode: 0o700 });
    for (const [segments, bytes] of files) {
      const target = resolve(modelDir, ...segments);
      if (!target.startsWith(modelDir + sep)) throw invalid(`invalid file override path '${segments.join('/')}'`);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, bytes, { mode: 0o600, flag: 'wx' });
    }
    await writeFile(join(modelDir, 'config.pbtxt'), config, { mode: 0o600, flag: 'wx' });
    return root;
  } catch (err) {
    await folders.discard(root);
    // the filesystem refused a file (a name past NAME_MAX, a full disk): Triton's 500 and words; the path
    // in the fs error's message is dropped where every message leaves (infer/redact-paths.ts)
    if (err instanceof InferError) throw err;
    throw errors.LOAD_NOT_FOUND(name, (err as Error).message);
  }
}

/** Triton's name for a parameter's type, as its refusal of an unknown load parameter words it. */
function parameterType(value: unknown): string {
  if (typeof value === 'string') return 'STRING';
  if (typeof value === 'boolean') return 'BOOL';
  if (typeof value === 'number') return Number.isInteger(value) ? 'INT' : 'DOUBLE';
  if (value instanceof Uint8Array) return 'BYTES';
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

export async function loadModel(manager: Pick<ModelManager, 'load'>, folders: PrivateFolders, name: string, params: LoadParameters): Promise<void> {
  // Triton refuses a load parameter it does not know instead of ignoring it (a misspelt "config" would
  // otherwise load the files on disk and look like success).
  for (const [key, value] of Object.entries(params)) {
    if (key !== 'config' && !key.startsWith('file:')) throw invalid(`Unrecognized load parameter '${key}' with type '${parameterType(value)}'`);
  }
  const fileKeys = Object.keys(params).filter((k) => k.startsWith('file:'));
  if (fileKeys.length > MAX_FILES) throw invalid(`at most ${MAX_FILES} file overrides in one load`);
  const hasConfig = params.config !== undefined;
  if (!hasConfig && fileKeys.length === 0) {
    await manager.load(name);
    await folders.release(name);
    return;
  }
  const config = hasConfig ? configText(params.config, name) : undefined;
  if (fileKeys.length > 0 && config === undefined) throw invalid("file overrides need the model's 'config' parameter too");
  const files = fileKeys.map((k) => [checkOverridePath(k.slice('file:'.length)), fileBytes(k, params[k])] as [string[], Uint8Array]);
  let folder: string | undefined;
  const fresh = `override-${++overrideSeq}`; // never "unchanged": an override always loads
  await manager.load(name, async (found): Promise<ScannedModel | undefined> => {
    if (files.length === 0) return found && { ...found, configText: config, fingerprint: `${found.fingerprint}:${fresh}` };
    folder = await writePrivateFolder(folders, name, config!, files);
    const scanned = await scanModelFolder(folder, name);
    return { ...scanned, fingerprint: `${scanned.fingerprint}:${fresh}` };
  }).catch(async (err) => {
    if (folder) await folders.discard(folder);
    throw err;
  });
  if (folder) await folders.attach(name, folder);
  else await folders.release(name);
}

/**
 * Triton's repository API: unloading a model that is not loaded succeeds and changes nothing. The
 * manager refuses it (the dashboard's control wants that answer), so that one refusal becomes success here.
 * The one unload parameter Triton reads is `unload_dependents` (a boolean; other keys are ignored, as there).
 */
export async function unloadModel(manager: Pick<ModelManager, 'unload'>, folders: PrivateFolders, name: string, params: LoadParameters = {}): Promise<void> {
  const dependents = params.unload_dependents ?? false;
  // Triton's words; its status for this is 500 (a JSON accessor's error), ours 400: the client's mistake
  if (typeof dependents !== 'boolean') throw invalid("Unable to parse 'unload_dependents': attempt to access JSON non-boolean as boolean");
  try {
    await manager.unload(name, { dependents });
  } catch (err) {
    if (!(err instanceof InferError && err.message === errors.UNLOAD_NOT_SERVED().message)) throw err;
  }
  await folders.release(name);
}
