// Every `inferscope` command reads its arguments the same way (args/args.ts): an unknown option, a value
// option without its value and a once-only option given twice are refused with exit status 2 and the same
// words, before anything starts. The commands are the ones main.ts discovers, so a new command is covered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCommands } from '../../apps/server/src/cli/main.ts';
import { numberArg, parseArgs } from '../../apps/server/src/args/args.ts';
import type { Command } from '../../apps/server/src/cli/command.ts';

async function runQuietly(command: Command, argv: string[]): Promise<{ status: number; stderr: string }> {
  const lines: string[] = [];
  const [error, log] = [console.error, console.log];
  console.error = (...args: unknown[]) => lines.push(args.join(' '));
  console.log = () => {};
  try {
    return { status: await command.run(argv), stderr: lines.join('\n') };
  } finally {
    [console.error, console.log] = [error, log];
  }
}

test('every command refuses an unknown option with exit status 2, naming it', async () => {
  const commands = await loadCommands();
  assert.ok(commands.length >= 10, `found only ${commands.length} commands`);
  for (const command of commands) {
    const { status, stderr } = await runQuietly(command, ['--no-such-option']);
    assert.equal(status, 2, `${command.name.join(' ')} answered ${status}: ${stderr}`);
    assert.match(stderr, /unknown option --no-such-option/, command.name.join(' '));
  }
});

test('the reader: values in both forms, flags, repeats in order, once-only options refused twice', () => {
  const specs = [{ names: ['-m', '--model'], key: 'model' }, { names: ['--json'], key: 'json', flag: true }, { names: ['--set'], key: 'set', repeat: true }];
  const a = parseArgs(['-m', 'mlp', '--set=a=1', '--json', '--set', 'b=2', 'file'], specs);
  assert.deepEqual(a.values, { model: 'mlp' });
  assert.deepEqual([...a.flags], ['json']);
  assert.deepEqual(a.lists, { set: ['a=1', 'b=2'] });
  assert.deepEqual(a.positional, ['file']);
  assert.deepEqual(parseArgs([], specs).lists, { set: [] });
  assert.throws(() => parseArgs(['--model', 'a', '--model', 'b'], specs), /--model was given 2 times \(once only\)/);
  assert.throws(() => parseArgs(['--model'], specs), /--model needs a value/);
  assert.throws(() => parseArgs(['--json=yes'], specs), /--json takes no value/);
  assert.throws(() => parseArgs(['--bogus'], specs), /^Error: unknown option --bogus$/);
});

test('numbers: one wording for every command, the range stated, plain digits only', () => {
  assert.equal(numberArg(undefined, '--rate', 5), 5);
  assert.equal(numberArg('2.5', '--rate', 5, { min: 0 }), 2.5);
  assert.throws(() => numberArg('x', '--rate', 5, { min: 0 }), /^Error: --rate must be a number >= 0 \(plain digits and a decimal point\), got 'x'$/);
  assert.throws(() => numberArg('', '--rate', 5), /--rate must be a number >= 0 \(plain digits and a decimal point\), got ''/);
  assert.throws(() => numberArg('1.5', '--replicas', 2, { integer: true, min: 1 }), /--replicas must be an integer >= 1 \(plain digits\), got '1.5'/);
  assert.throws(() => numberArg('70000', '--port', 0, { integer: true, min: 0, max: 65535 }), /--port must be an integer >= 0 and <= 65535 \(plain digits\), got '70000'/);
  // what Number() would take and a person did not mean: refused, not read as 1000, 16, 5 or 7
  for (const text of ['1e3', '0x10', '+5', ' 7', '7 ', '1_000', 'Infinity', '.5', '5.']) {
    assert.throws(() => numberArg(text, '--rate', 5), new RegExp(`--rate must be a number >= 0 .*, got '${text.replace(/[.+]/g, '\\$&')}'`), text);
  }
});
