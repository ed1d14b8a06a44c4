import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServeArgs, validateServerOptions, OptionsError } from '../../apps/server/src/server-options.ts';

test('serve flags: defaults, lists, =value form, memory budget, token from the environment', () => {
  const o = parseServeArgs(['--model-repository', 'a,b', '--model-repository=c'], {});
  assert.deepEqual(o.modelRepositories, ['a', 'b', 'c']);
  assert.equal(o.modelControlMode, 'none');
  assert.equal(o.httpPort, 8000);
  assert.equal(o.metricsPort, 8002);
  assert.equal(o.grpcPort, 8001, "Triton's gRPC port by default on the command line");
  assert.equal(parseServeArgs(['--model-repository', 'r', '--grpc-port', '0'], {}).grpcPort, 0);
  assert.equal(parseServeArgs(['--model-repository', 'r', '--no-grpc'], {}).grpcPort, null);
  assert.equal(validateServerOptions({ modelRepositories: ['r'] }).grpcPort, null, 'buildApp without a port serves no gRPC (never a fixed port in tests)');
  assert.equal(o.host, '127.0.0.1');
  assert.equal(o.controlToken, undefined);
  const e = parseServeArgs(['--model-repository', 'r', '--model-control-mode', 'explicit', '--load-model', 'x', '--load-model=y,z',
    '--http-port', '0', '--no-metrics', '--memory-budget', '512MiB', '--repository-poll-secs', '2'], { INFERSCOPE_CONTROL_TOKEN: 'tok' });
  assert.deepEqual(e.loadModels, ['x', 'y', 'z']);
  assert.equal(e.httpPort, 0);
  assert.equal(e.metricsPort, null);
  assert.deepEqual(e.memoryBudget, { cpu: 512 * 1024 * 1024 });
  assert.equal(e.controlToken, 'tok');
  assert.equal(parseServeArgs(['--model-repository', 'r', '--control-token', 'flag'], { INFERSCOPE_CONTROL_TOKEN: 'env' }).controlToken, 'flag');
  // connection limits (net/connection-timeouts.ts): defaults, and fractions of a second for tests
  assert.equal(o.handshakeTimeoutSecs, 10);
  assert.equal(o.idleTimeoutSecs, 120);
  const t = parseServeArgs(['--model-repository', 'r', '--handshake-timeout-secs', '0.2', '--idle-timeout-secs=30'], {});
  assert.deepEqual([t.handshakeTimeoutSecs, t.idleTimeoutSecs], [0.2, 30]);
});

test('serve flags: every mistake is refused with the flag named', () => {
  const refuses = (argv: string[], re: RegExp) => assert.throws(() => parseServeArgs(argv, {}), (err: Error) => err instanceof OptionsError && re.test(err.message), argv.join(' '));
  refuses([], /--model-repository is required/);
  refuses(['--model-repository', ' , '], /--model-repository is required/);
  refuses(['--model-repository', 'r', '--model-control-mode', 'sometimes'], /none, poll or explicit/);
  refuses(['--model-repository', 'r', '--load-model', 'm'], /--load-model can only be used with --model-control-mode explicit/);
  refuses(['--model-repository', 'r', '--model-control-mode', 'explicit', '--load-model', '*', '--load-model', 'a'], /must be the only --load-model/);
  refuses(['--model-repository', 'r', '--http-port', '70000'], /--http-port must be a port number/);
  refuses(['--model-repository', 'r', '--grpc-port=-1'], /--grpc-port must be a number >= 0 .*, got '-1'/);
  refuses(['--model-repository', 'r', '--grpc-port', '65536'], /--grpc-port must be a port number/);
  refuses(['--model-repository', 'r', '--http-port', 'eighty'], /--http-port must be a number >= 0 \(plain digits and a decimal point\), got 'eighty'/);
  refuses(['--model-repository', 'r', '--memory-budget', 'lots'], /--memory-budget/);
  refuses(['--model-repository', 'r', '--repository-poll-secs', '-1'], /--repository-poll-secs/);
  refuses(['--model-repository', 'r', '--bogus'], /unknown option --bogus/);
  refuses(['--model-repository', 'r', '--handshake-timeout-secs', '0'], /--handshake-timeout-secs must be a number of seconds > 0, got 0/);
  refuses(['--model-repository', 'r', '--idle-timeout-secs', 'never'], /--idle-timeout-secs must be a number >= 0 \(plain digits and a decimal point\), got 'never'/);
  refuses(['--model-repository', 'r', '--idle-timeout-secs=-5'], /--idle-timeout-secs must be a number >= 0 \(plain digits and a decimal point\), got '-5'/);
  refuses(['--model-repository'], /--model-repository needs a value/);
  refuses(['--model-repository', 'r', '--host', 'a', '--host', 'b'], /--host was given 2 times/);
  assert.throws(() => validateServerOptions({ modelRepositories: ['r'], bodyLimit: 10 }), /body limit/);
});
