/**
 * `inferscope <command> [args]`: finds the command whose name words match the start of argv.
 * Commands are discovered from ./commands (one file each, default export: Command).
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from './command';

export async function loadCommands(): Promise<Command[]> {
  const dir = fileURLToPath(new URL('./commands/', import.meta.url));
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();
  const commands: Command[] = [];
  for (const f of files) {
    const mod = (await import(new URL(`./commands/${f}`, import.meta.url).href)) as { default?: Command };
    if (mod.default) commands.push(mod.default);
  }
  return commands;
}

function usage(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.join(' ').length), 8);
  const lines = commands.map((c) => `  ${c.name.join(' ').padEnd(width)}  ${c.summary}`);
  return ['Usage: inferscope <command> [options]', '', 'Commands:', ...lines, '', 'Run `inferscope <command> --help` for the options of a command.'].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const commands = await loadCommands();
  // Longest name first so `config check` wins over a hypothetical `config`.
  const match = [...commands]
    .sort((a, b) => b.name.length - a.name.length)
    .find((c) => c.name.every((w, i) => argv[i] === w));
  if (!match) {
    const wantsHelp = argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help';
    (wantsHelp ? console.log : console.error)(
      (wantsHelp ? '' : `unknown command: ${argv.join(' ')}\n\n`) + usage(commands),
    );
    return wantsHelp ? 0 : 2;
  }
  const rest = argv.slice(match.name.length);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(match.help);
    return 0;
  }
  return match.run(rest);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exitCode = 1;
    },
  );
}
