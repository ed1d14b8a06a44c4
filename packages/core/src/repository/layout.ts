/**
 * Repository layout rules, given listings (names + kinds), never the disk: the server's scanner reads
 * folders and hands the listings here, so the rules stay testable without files.
 *
 * Layout (Triton's): <repository>/<model>/config.pbtxt (optional when auto-complete can fill it) and
 * <repository>/<model>/<version>/<model file>. Every sub-folder of a repository is a model; plain files
 * at the top of a repository are ignored.
 */
import { classifyVersionFolder } from './versions';

export interface ListingEntry {
  name: string;
  isDirectory: boolean;
}

export const CONFIG_FILE = 'config.pbtxt';

/**
 * Refuses names that could escape the repository or name something that is not a model folder.
 * Model names arrive from URLs and control messages, so this runs before any path is joined.
 */
export function checkModelName(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'model name must be a non-empty string';
  if (name.length > 255) return 'model name is longer than 255 characters';
  if (name === '.' || name === '..' || name.includes('/') || name.includes('\\') || name.includes('\0')) {
    return `invalid model name '${printable(name)}': a model name cannot contain path separators or be '.' or '..'`;
  }
  if (name.startsWith('.')) return `invalid model name '${printable(name)}': names starting with '.' are hidden folders, not models`;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) return `invalid model name '${printable(name)}': control characters are not allowed`;
  return undefined;
}

function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f\x7f]/g, '?').slice(0, 100);
}

/**
 * Model folders of one repository listing. Hidden folders (.git, .ipynb_checkpoints ...) are skipped:
 * they are tool droppings, and serving them as models only produces confusing UNAVAILABLE rows.
 */
export function modelFoldersOf(listing: readonly ListingEntry[]): string[] {
  return listing
    .filter((e) => e.isDirectory && checkModelName(e.name) === undefined)
    .map((e) => e.name)
    .sort();
}

export interface ModelFolderLayout {
  hasConfig: boolean;
  /** numeric version folders, ascending */
  versions: number[];
  /** sub-folders that are not versions, with the reason (for logs and the repository view) */
  ignored: { name: string; why: string }[];
}

export function describeModelFolder(listing: readonly ListingEntry[]): ModelFolderLayout {
  const versions: number[] = [];
  const ignored: { name: string; why: string }[] = [];
  let hasConfig = false;
  for (const e of listing) {
    // A config.pbtxt that is not a regular file (a folder, a broken link) still counts as the model's
    // config: reading it then fails with a reason, instead of the model silently loading without it.
    if (e.name === CONFIG_FILE) {
      hasConfig = true;
      continue;
    }
    if (!e.isDirectory) continue;
    const v = classifyVersionFolder(e.name);
    if ('version' in v) versions.push(v.version);
    else ignored.push({ name: e.name, why: v.ignored });
  }
  versions.sort((a, b) => a - b);
  return { hasConfig, versions, ignored };
}

/**
 * Models that appear in more than one repository, with the repositories they appear in. Triton refuses
 * to choose between them; so do we (the model becomes UNAVAILABLE, the others keep serving).
 */
export function findDuplicateModels(modelsByRepository: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  for (const [repo, models] of modelsByRepository) {
    for (const m of models) {
      const list = seen.get(m);
      if (list) list.push(repo);
      else seen.set(m, [repo]);
    }
  }
  const dups = new Map<string, string[]>();
  for (const [m, repos] of seen) if (repos.length > 1) dups.set(m, repos);
  return dups;
}

export const DUPLICATE_MODEL_REASON = 'model appears in two or more repositories';

/**
 * Default model file name per platform/backend when config.default_model_filename is unset (Triton's
 * defaults). Used to find the file a version folder must contain, and to guess the platform of a model
 * that has no config.pbtxt (auto-complete).
 */
export const DEFAULT_MODEL_FILENAMES: Record<string, string> = {
  onnxruntime_onnx: 'model.onnx',
  onnxruntime: 'model.onnx',
  tensorrt_plan: 'model.plan',
  tensorrt: 'model.plan',
  pytorch_libtorch: 'model.pt',
  pytorch: 'model.pt',
  tensorflow_graphdef: 'model.graphdef',
  tensorflow_savedmodel: 'model.savedmodel',
  openvino: 'model.xml',
  python: 'model.py',
};

/** Platform guessed from the files of a version folder (used only when config.pbtxt gives none). */
export function guessPlatform(versionFiles: readonly string[]): { platform?: string; backend?: string } {
  if (versionFiles.includes('model.onnx')) return { platform: 'onnxruntime_onnx', backend: 'onnxruntime' };
  if (versionFiles.includes('model.plan')) return { platform: 'tensorrt_plan', backend: 'tensorrt' };
  if (versionFiles.includes('model.pt')) return { platform: 'pytorch_libtorch', backend: 'pytorch' };
  if (versionFiles.includes('model.py')) return { backend: 'python' };
  return {};
}
