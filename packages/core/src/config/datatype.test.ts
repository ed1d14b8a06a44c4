import { test } from 'node:test';
import assert from 'node:assert/strict';
import { datatypeByteSize, isDataType, kserveToTritonDatatype, tritonToKServeDatatype } from './datatype';
import { DATA_TYPE_VALUES } from './schema';

test('Triton and KServe datatype names map both ways', () => {
  assert.equal(tritonToKServeDatatype('TYPE_FP32'), 'FP32');
  assert.equal(tritonToKServeDatatype('TYPE_STRING'), 'BYTES');
  assert.equal(tritonToKServeDatatype('TYPE_BOOL'), 'BOOL');
  assert.equal(tritonToKServeDatatype('TYPE_INVALID'), undefined);
  assert.equal(kserveToTritonDatatype('BYTES'), 'TYPE_STRING');
  assert.equal(kserveToTritonDatatype('INT64'), 'TYPE_INT64');
  assert.equal(kserveToTritonDatatype('FLOAT32'), undefined);
  assert.equal(kserveToTritonDatatype('toString'), undefined);
  for (const t of DATA_TYPE_VALUES) {
    if (t === 'TYPE_INVALID') continue;
    assert.equal(kserveToTritonDatatype(tritonToKServeDatatype(t)!), t);
  }
});

test('element byte sizes, 0 for variable-size and invalid types', () => {
  assert.equal(datatypeByteSize('TYPE_FP32'), 4);
  assert.equal(datatypeByteSize('FP16'), 2);
  assert.equal(datatypeByteSize('TYPE_INT64'), 8);
  assert.equal(datatypeByteSize('BOOL'), 1);
  assert.equal(datatypeByteSize('TYPE_STRING'), 0);
  assert.equal(datatypeByteSize('BYTES'), 0);
  assert.equal(datatypeByteSize('TYPE_INVALID'), 0);
});

test('isDataType recognises the enum names only', () => {
  assert.ok(isDataType('TYPE_BF16'));
  assert.ok(!isDataType('FP32'));
});
