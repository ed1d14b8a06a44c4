/**
 * One CLI command. Each command lives in its own file under ./commands and default-exports one of these;
 * main.ts discovers them, so adding a command never touches a shared list.
 */
export interface Command {
  /** words after `inferscope`, e.g. ['config', 'check'] or ['serve'] */
  name: string[];
  /** one line for the command list */
  summary: string;
  /** full text for `inferscope <name> --help` */
  help: string;
  /** returns the process exit code */
  run(argv: string[]): Promise<number>;
}
