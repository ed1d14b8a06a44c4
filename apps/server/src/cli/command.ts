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

/** A usage error: the problem, then the command's help, on stderr; exit status 2. */
export function usageError(message: string, help: string): number {
  console.error(`${message}\n\n${help}`);
  return 2;
}

/**
 * Wraps a command body that throws for bad arguments or an unreachable server: the message goes to stderr
 * as `LABEL: message` with exit status 2, so scripts can tell it from a run that completed and failed (1).
 */
export function reportingErrors(label: string, body: (argv: string[]) => Promise<number>): (argv: string[]) => Promise<number> {
  return async (argv) => {
    try {
      return await body(argv);
    } catch (err) {
      console.error(`${label}: ${err instanceof Error ? err.message : String(err)}`);
      return 2;
    }
  };
}
