import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, expectOne, issuesOf, rawIssuesOf } from './test-helpers';

const group = (g: string, gpuCount = 1) => issuesOf(`${BASE}\ninstance_group { ${g} }`, { gpuCount });

test('instance groups: at least one (after normalisation there always is)', () => {
  expectOne(rawIssuesOf(BASE + 'backend: "onnxruntime" version_policy { latest { } }'), "must specify one or more 'instance group's for m");
});

test('instance groups: KIND_CPU and KIND_MODEL take no GPUs', () => {
  expectOne(group('kind: KIND_CPU gpus: [ 0 ]'), 'instance group m_0 of model m has kind KIND_CPU but specifies one or more GPUs');
  expectOne(group('kind: KIND_MODEL gpus: [ 0 ]'), 'instance group m_0 of model m has kind KIND_MODEL but specifies one or more GPUs');
  assert.deepEqual(group('kind: KIND_MODEL'), []);
});

test('instance groups: KIND_GPU on a host without GPUs, with a hint', () => {
  const issue = expectOne(group('kind: KIND_GPU', 0), 'instance group m_0 of model m has kind KIND_GPU but no GPUs are available');
  assert.match(issue.hint ?? '', /this host has no GPUs; use kind: KIND_CPU/);
});

test('instance groups: KIND_GPU must list GPUs (before normalisation fills them)', () => {
  expectOne(rawIssuesOf(BASE + 'backend: "onnxruntime" version_policy { latest { } } instance_group { name: "g" kind: KIND_GPU }', 1),
    'instance group g of model m has kind KIND_GPU but specifies no GPUs');
});

test('instance groups: GPU ids must exist on the host', () => {
  const issue = expectOne(group('kind: KIND_GPU gpus: [ 0, 2 ]', 2),
    'instance group m_0 of model m specifies invalid or unsupported gpu id 2. GPUs with at least the minimum required CUDA compute compatibility of 6.000000 are: 0, 1');
  assert.match(issue.hint ?? '', /2 GPUs \(ids 0\.\.1\)/);
  assert.deepEqual(group('kind: KIND_GPU gpus: [ 1 ]', 2), []);
});

test('instance groups: KIND_AUTO must be resolved first', () => {
  expectOne(rawIssuesOf(BASE + 'backend: "onnxruntime" version_policy { latest { } } instance_group { name: "g" }'),
    'instance group g of model m has unexpected kind KIND_AUTO');
});

test('instance groups: profiles only for TensorRT, as non-negative integers', () => {
  expectOne(group('kind: KIND_CPU profile: "0"'), 'specifies profile field which is only supported for TensorRT models');
  const trt = (p: string) => issuesOf(BASE.replace('onnxruntime_onnx', 'tensorrt_plan') + `instance_group { kind: KIND_GPU profile: "${p}" }`);
  assert.deepEqual(trt('1'), []);
  expectOne(trt('-1'), 'specifies invalid profile -1. The field should contain the string representation of a non-negative integer.');
  expectOne(trt('x'), "unable to parse 'x'");
});
