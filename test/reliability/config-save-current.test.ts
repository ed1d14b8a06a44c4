/**
 * Config saves edit the file AS IT IS NOW (issue 56, data loss). A save used to edit the text read at
 * load: hand edits made since (a parameter, a comment) were written over, and the preview's diff was
 * against that old text, so nothing warned. A second save with nothing left to change copied the first
 * save's output to .bak, and the user's original was gone. Here, through save-config with the real config
 * engine: hand edits survive and the preview is against the current file; a save with nothing to change
 * writes nothing; the .bak stays the user's file across saves and restarts; an outside edit that lands
 * between the read and the rename is kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseModelConfig } from '@inferscope/core/config';
import { saveModelConfig } from '../../apps/server/src/models/config-writeback/save-config.ts';
import { loadedWithDelay, realConfigEngine } from './config-engine.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const HAND = '\n# tuned by hand after the model loaded\nparameters { key: "hand_param" value: { string_value: "kept" } }\n';

async function withModel(fn: (repo: string, file: string) => Promise<void>): Promise<void> {
  const repo = await mkdtemp(join(tmpdir(), 'is-save-now-'));
  await cp(join(ROOT, 'model_repository/cnn_classifier'), join(repo, 'cnn_classifier'), { recursive: true });
  try {
    await fn(repo, join(repo, 'cnn_classifier/config.pbtxt'));
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}

/** bytes and mtime: what "wrote nothing" is checked against */
async function fingerprint(path: string): Promise<string | undefined> {
  const s = await stat(path).catch(() => undefined);
  return s && `${(await readFile(path)).toString('base64')}@${s.mtimeMs}`;
}

test('hand edits made after load survive a save, and the preview diff is against the file as it is now', async () => {
  await withModel(async (repo, file) => {
    const { entry, slot } = await loadedWithDelay(repo, 4321);
    await appendFile(file, HAND);
    const handEdited = await readFile(file, 'utf8');

    const preview = await saveModelConfig(entry, slot, realConfigEngine, true);
    assert.equal(preview.written, false);
    assert.equal(await readFile(file, 'utf8'), handEdited, 'a preview writes nothing');
    const lines = preview.diff.split('\n');
    assert.ok(lines.includes('-  max_queue_delay_microseconds: 1000') && lines.includes('+  max_queue_delay_microseconds: 4321'), preview.diff);
    assert.deepEqual(lines.filter((l) => /^[-+][^-+]/.test(l)).length, 2, `only the delay line changes:\n${preview.diff}`);
    assert.ok(preview.text.includes(HAND.trim()), 'the previewed text has the hand edits');
    assert.match(preview.notes.join('\n'), /edited on disk since the model loaded/);

    const saved = await saveModelConfig(entry, slot, realConfigEngine, false);
    const after = await readFile(file, 'utf8');
    assert.equal(after, handEdited.replace('max_queue_delay_microseconds: 1000', 'max_queue_delay_microseconds: 4321'));
    assert.equal(parseModelConfig(after).parameters?.hand_param?.string_value, 'kept');
    assert.equal(saved.diff, preview.diff, 'what was shown is what was written');
    assert.equal(await readFile(saved.backup!, 'utf8'), handEdited, 'the .bak is the file the save replaced');
  });
});

test('a field changed by hand since load that the save overwrites is named in the preview', async () => {
  await withModel(async (repo, file) => {
    const { entry, slot } = await loadedWithDelay(repo, 4321);
    await writeFile(file, (await readFile(file, 'utf8')).replace('max_queue_delay_microseconds: 1000', 'max_queue_delay_microseconds: 250'));
    const preview = await saveModelConfig(entry, slot, realConfigEngine, true);
    assert.match(preview.notes.join('\n'), /'dynamic_batching\.max_queue_delay_microseconds' was changed by hand from 1000 to 250; saving writes the live value 4321/);
    assert.match(preview.diff, /^-  max_queue_delay_microseconds: 250$/m);
  });
});

test('a save with nothing to change writes nothing: no new mtime, no .bak', async () => {
  await withModel(async (repo, file) => {
    // the live value is the one the file already has (set live, then set back; or written by hand)
    const { entry, slot } = await loadedWithDelay(repo, 1000);
    const before = await fingerprint(file);
    const r = await saveModelConfig(entry, slot, realConfigEngine, false);
    assert.deepEqual([r.written, r.backup, r.diff, r.changed], [false, null, '', []]);
    assert.equal(await fingerprint(file), before);
    assert.deepEqual((await readdir(join(repo, 'cnn_classifier'))).filter((n) => n !== 'config.pbtxt' && n !== '1'), [], 'no .bak, no record, no temp file');
    assert.equal(slot.changedPaths.size, 0, 'nothing is left unsaved');
  });
});

test('saving twice: the second save writes nothing and the .bak stays the original bytes', async () => {
  await withModel(async (repo, file) => {
    const original = await readFile(file);
    const { entry, slot } = await loadedWithDelay(repo, 4321);
    const first = await saveModelConfig(entry, slot, realConfigEngine, false);
    assert.equal(first.written, true);
    const written = await fingerprint(file);
    const bak = await fingerprint(first.backup!);
    const second = await saveModelConfig(entry, slot, realConfigEngine, false);
    assert.deepEqual([second.written, second.backup, second.diff], [false, null, '']);
    assert.equal(await fingerprint(file), written);
    assert.equal(await fingerprint(first.backup!), bak);
    assert.deepEqual(await readFile(first.backup!), original);
  });
});

test('the .bak is never replaced by a file the server wrote, also after a restart; a hand-edited file does replace it', async () => {
  await withModel(async (repo, file) => {
    const original = await readFile(file);
    const first = await loadedWithDelay(repo, 4321);
    await saveModelConfig(first.entry, first.slot, realConfigEngine, false);
    // a new server process: nothing in memory, the model loaded from the file the first save wrote
    const again = await loadedWithDelay(repo, 555);
    const r = await saveModelConfig(again.entry, again.slot, realConfigEngine, false);
    assert.equal(r.written, true);
    assert.equal(r.backupKept, true, 'the answer says the .bak kept is an earlier one');
    assert.deepEqual(await readFile(r.backup!), original, 'the .bak is still the user\'s original');
    assert.match(await readFile(file, 'utf8'), /max_queue_delay_microseconds: 555/);

    await appendFile(file, HAND);
    const handEdited = await readFile(file);
    const third = await loadedWithDelay(repo, 777);
    const r3 = await saveModelConfig(third.entry, third.slot, realConfigEngine, false);
    assert.equal(r3.backupKept, false);
    assert.deepEqual(await readFile(r3.backup!), handEdited, 'a file the user edited is theirs: it becomes the .bak');
  });
});

test('an outside edit landing between the read and the rename is kept: the save starts over from it', async () => {
  await withModel(async (repo, file) => {
    const { entry, slot } = await loadedWithDelay(repo, 4321);
    let edits = 0;
    const r = await saveModelConfig(entry, slot, realConfigEngine, false, {
      afterRead: async () => {
        if (edits++ === 0) await appendFile(file, HAND);
      },
    });
    assert.equal(edits, 2, 'the save read the file again after the outside edit');
    const after = await readFile(file, 'utf8');
    assert.match(after, /max_queue_delay_microseconds: 4321/);
    assert.equal(parseModelConfig(after).parameters?.hand_param?.string_value, 'kept', 'the outside edit survived');
    assert.ok(r.diff.split('\n').every((l) => !l.startsWith('-') || l.startsWith('---') || l.includes('max_queue_delay')), r.diff);
  });
});

test('a file that keeps changing under the save is not written: a clear error, the outside edits kept', async () => {
  await withModel(async (repo, file) => {
    const { entry, slot } = await loadedWithDelay(repo, 4321);
    let n = 0;
    await assert.rejects(
      saveModelConfig(entry, slot, realConfigEngine, false, { afterRead: () => appendFile(file, `# outside edit ${++n}\n`) }),
      /changed on disk during each of 3 tries to save; it was not written/,
    );
    const after = await readFile(file, 'utf8');
    assert.match(after, /# outside edit 3\n$/);
    assert.match(after, /max_queue_delay_microseconds: 1000/, 'the save did not write');
    assert.equal(slot.changedPaths.size, 1, 'the live change is still unsaved');
  });
});

test('a file that no longer parses, or was removed since load, is refused with a reason and left alone', async () => {
  await withModel(async (repo, file) => {
    const { entry, slot } = await loadedWithDelay(repo, 4321);
    await appendFile(file, 'dynamic_batching {');
    const broken = await readFile(file, 'utf8');
    await assert.rejects(saveModelConfig(entry, slot, realConfigEngine, false), /the file on disk does not parse now .*line \d+.*nothing was written/);
    assert.equal(await readFile(file, 'utf8'), broken);
    await rm(file);
    await assert.rejects(saveModelConfig(entry, slot, realConfigEngine, false), /was removed since the model loaded; nothing was written/);
    assert.deepEqual((await readdir(join(repo, 'cnn_classifier'))).filter((n) => n.startsWith('config')), []);
  });
});

test('a config.pbtxt created after an auto-completed load is edited, not replaced by the loaded config', async () => {
  await withModel(async (repo, file) => {
    const { entry, slot } = await loadedWithDelay(repo, 4321);
    entry.scanned.configText = undefined; // the model loaded without a file (auto-complete); this one came later
    await appendFile(file, HAND);
    const r = await saveModelConfig(entry, slot, realConfigEngine, false);
    assert.equal(r.written, true);
    assert.match(r.notes.join('\n'), /was created since the model loaded/);
    const after = await readFile(file, 'utf8');
    assert.ok(after.includes(HAND.trim()) && after.includes('# cnn_classifier: two 3x3'), 'the file\'s own text and comments are kept');
    assert.match(after, /max_queue_delay_microseconds: 4321/);
  });
});

test('instance groups reordered by hand since load: the live count is not written onto another group', async () => {
  await withModel(async (repo, file) => {
    const { entry, slot } = await loadedWithDelay(repo, 1000);
    slot.config!.instance_group = [{ ...slot.config!.instance_group![0], count: 3 }];
    slot.changedPaths = new Set(['instance_group[0].count']);
    // by hand: a second group in front of the one whose count was changed live
    const original = await readFile(file, 'utf8');
    const added = '  {\n    name: "added_by_hand"\n    count: 1\n    kind: KIND_CPU\n  },\n';
    const text = original.replace('instance_group [\n', `instance_group [\n${added}`);
    await writeFile(file, text);
    await assert.rejects(saveModelConfig(entry, slot, realConfigEngine, false), /instance_group\[0\] in config.pbtxt is not the group whose count was changed live.*added_by_hand.*nothing was written/);
    assert.equal(await readFile(file, 'utf8'), text);
    // a hand edit elsewhere leaves the group where it was: that save goes through
    await writeFile(file, original + HAND);
    const r = await saveModelConfig(entry, slot, realConfigEngine, false);
    assert.equal(parseModelConfig(await readFile(file, 'utf8')).instance_group?.[0].count, 3, JSON.stringify(r.notes));
  });
});
