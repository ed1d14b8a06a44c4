/**
 * The two ways a config can be wrong.
 * - ConfigError: the text cannot be read (syntax, unknown field, wrong value type). Thrown by the parser,
 *   always with a 1-based line and column.
 * - ConfigIssue: the text reads fine but Triton would refuse the model (validation). Carries Triton's
 *   message, an optional beginner's hint, the dotted path of the offending field and, when the config came
 *   from text, the line and column of that field.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    /** the message without the position */
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} (line ${line}, column ${column})`);
  }
}

export interface ConfigIssue {
  /** Triton's wording, so users can search for it */
  message: string;
  /** advice for a likely beginner's mistake, shown after the message */
  hint?: string;
  /** dotted path of the field, e.g. 'input[0].dims' or 'dynamic_batching.priority_queue_policy[1]' */
  path?: string;
  line?: number;
  column?: number;
}

/** One line for a person: `MESSAGE; hint: HINT (line L, column C)`. */
export function formatIssue(issue: ConfigIssue | ConfigError): string {
  if (issue instanceof ConfigError) return issue.message;
  let text = issue.message;
  if (issue.hint) text += `${text.endsWith('.') ? '' : ';'} hint: ${issue.hint}`;
  if (issue.line !== undefined) text += ` (line ${issue.line}, column ${issue.column ?? 1})`;
  return text;
}
