import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkBindSecurity,
  isLoopbackHost,
  resolveControlToken,
  tokenMatches,
  CONTROL_TOKEN_ENV,
} from '../../apps/server/src/control/security.ts';

test('loopback addresses are recognised, others are not', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.1', 'example.com', '::ffff:10.0.0.1']) assert.equal(isLoopbackHost(h), false, h);
});

test('a non-loopback bind without a token is refused unless open control is allowed', () => {
  assert.doesNotThrow(() => checkBindSecurity('127.0.0.1', undefined, false));
  assert.throws(() => checkBindSecurity('0.0.0.0', undefined, false), /--control-token/);
  assert.throws(() => checkBindSecurity('0.0.0.0', '', false), /refusing to bind 0\.0\.0\.0/);
  assert.doesNotThrow(() => checkBindSecurity('0.0.0.0', 's3cret', false));
  assert.doesNotThrow(() => checkBindSecurity('0.0.0.0', undefined, true));
});

test('token resolution: flag beats environment, empty means none', () => {
  assert.equal(resolveControlToken('a', { [CONTROL_TOKEN_ENV]: 'b' }), 'a');
  assert.equal(resolveControlToken(undefined, { [CONTROL_TOKEN_ENV]: 'b' }), 'b');
  assert.equal(resolveControlToken(undefined, { [CONTROL_TOKEN_ENV]: '' }), undefined);
  assert.equal(resolveControlToken(undefined, {}), undefined);
});

test('token comparison', () => {
  assert.equal(tokenMatches(undefined, undefined), true);
  assert.equal(tokenMatches('abc', 'abc'), true);
  assert.equal(tokenMatches('abc', 'abd'), false);
  assert.equal(tokenMatches('abc', 'abcd'), false);
  assert.equal(tokenMatches('abc', undefined), false);
  assert.equal(tokenMatches('abc', 42), false);
});
