import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  classifyVersionFolder,
  selectVersions,
  parseRequestedVersion,
  checkModelName,
  modelFoldersOf,
  describeModelFolder,
  findDuplicateModels,
  diffRepository,
  guessPlatform,
} from '@inferscope/core/repository';

test('version folders: positive integers only, Triton rules for odd names', () => {
  assert.deepEqual(classifyVersionFolder('1'), { version: 1 });
  assert.deepEqual(classifyVersionFolder('42'), { version: 42 });
  for (const odd of ['0', '01', '007', '-1', '1a', 'v1', '1.0', ' 1', '', 'latest']) {
    const c = classifyVersionFolder(odd);
    assert.ok('ignored' in c, `${JSON.stringify(odd)} must be ignored`);
  }
  assert.match((classifyVersionFolder('01') as { ignored: string }).ignored, /leading zeros/);
  assert.match((classifyVersionFolder('99999999999999999999') as { ignored: string }).ignored, /too large/);
  assert.match((classifyVersionFolder('warmup') as { ignored: string }).ignored, /reserved/);
});

test('selectVersions: default policy is latest 1', () => {
  assert.deepEqual(selectVersions([3, 1, 2], undefined).versions, [3]);
});

test('selectVersions: latest N keeps the N highest', () => {
  assert.deepEqual(selectVersions([1, 5, 3, 2], { latest: { num_versions: 2 } }).versions, [3, 5]);
  assert.deepEqual(selectVersions([1], { latest: { num_versions: 3 } }).versions, [1]);
});

test('selectVersions: all', () => {
  assert.deepEqual(selectVersions([2, 1, 2], { all: {} }).versions, [1, 2]);
});

test('selectVersions: specific loads present ones and reports missing ones', () => {
  const s = selectVersions([1, 2], { specific: { versions: [2, 7] } }, 'm');
  assert.deepEqual(s.versions, [2]);
  assert.deepEqual(s.missing, [7]);
  assert.equal(s.warnings[0], "version 7 is specified for model 'm', but the version directory is not present");
  assert.equal(s.error, undefined);
});

test('selectVersions: nothing to load is an error for the model', () => {
  assert.equal(selectVersions([], undefined, 'm').error, "at least one version must be available under the version policy of model 'm'");
  assert.match(selectVersions([1], { specific: { versions: [3] } }, 'm').error ?? '', /at least one version/);
});

test('parseRequestedVersion', () => {
  assert.deepEqual(parseRequestedVersion(undefined), {});
  assert.deepEqual(parseRequestedVersion(''), {});
  assert.deepEqual(parseRequestedVersion('3'), { version: 3 });
  assert.match(parseRequestedVersion('abc').error ?? '', /integral value > 0/);
  assert.match(parseRequestedVersion('0').error ?? '', /integral value > 0/);
  assert.match(parseRequestedVersion('-2').error ?? '', /integral value > 0/);
});

test('checkModelName refuses path tricks', () => {
  assert.equal(checkModelName('mlp_classifier'), undefined);
  assert.equal(checkModelName('model-1.v2'), undefined);
  for (const bad of ['', '.', '..', '../etc', 'a/b', 'a\\b', '.hidden', 'x\0y', 'tab\there']) {
    assert.ok(checkModelName(bad), `${JSON.stringify(bad)} must be refused`);
  }
  assert.ok(checkModelName(42));
});

test('modelFoldersOf: folders only, hidden ones skipped, sorted', () => {
  const names = modelFoldersOf([
    { name: 'b', isDirectory: true },
    { name: 'a', isDirectory: true },
    { name: 'README.md', isDirectory: false },
    { name: '.git', isDirectory: true },
  ]);
  assert.deepEqual(names, ['a', 'b']);
});

test('describeModelFolder: config, versions, ignored folders with reasons', () => {
  const d = describeModelFolder([
    { name: 'config.pbtxt', isDirectory: false },
    { name: '2', isDirectory: true },
    { name: '1', isDirectory: true },
    { name: '01', isDirectory: true },
    { name: 'extra', isDirectory: true },
    { name: '3', isDirectory: false },
  ]);
  assert.equal(d.hasConfig, true);
  assert.deepEqual(d.versions, [1, 2]);
  assert.deepEqual(d.ignored.map((i) => i.name), ['01', 'extra']);
});

test('findDuplicateModels names every repository a model appears in', () => {
  const dups = findDuplicateModels(new Map([
    ['/r1', ['a', 'b']],
    ['/r2', ['b', 'c']],
    ['/r3', ['b']],
  ]));
  assert.deepEqual([...dups.entries()], [['b', ['/r1', '/r2', '/r3']]]);
});

test('diffRepository classifies added/removed/modified/unchanged', () => {
  const d = diffRepository(new Map([['a', '1'], ['b', '1'], ['c', '1']]), new Map([['a', '1'], ['b', '2'], ['d', '1']]));
  assert.deepEqual(d, { added: ['d'], removed: ['c'], modified: ['b'], unchanged: ['a'] });
});

test('guessPlatform from version files', () => {
  assert.deepEqual(guessPlatform(['model.onnx']), { platform: 'onnxruntime_onnx', backend: 'onnxruntime' });
  assert.deepEqual(guessPlatform(['weights.bin']), {});
});
