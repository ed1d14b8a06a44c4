/**
 * Comments a save would make false. A config says why a value is what it is ("# Two instances, one per
 * core" above `count: 2`, "# ... or once the oldest request has waited 2 ms." above
 * `max_queue_delay_microseconds: 2000`); writing a new value under such a comment leaves a lie in the
 * user's file. Before a value is replaced, the comments attached to it are checked for mentions of the
 * OLD value. A mention tied to the field is rewritten to the new value in the same form: a duration in its
 * unit, or a number (digits or word) followed by the field's own noun ("two instances"). Any other mention
 * of the old number is left as written and named in the answer, to be checked by the user. A list value's comment line that names a size the new list
 * no longer has cannot be rewritten faithfully: that line is dropped. Comments that do not mention the
 * old value are left alone (they still hold).
 *
 * Attached = the trailing comment on the field's line, and the comment block (contiguous `#` lines, no
 * blank line) right above the field's line and right above the line of each message that encloses it
 * (a comment over `instance_group [` describes its count).
 */

export interface CommentEdit {
  /** the 1-based line of the field whose value changes */
  fieldLine: number;
  /** the 1-based lines of the messages enclosing the field */
  enclosingLines: readonly number[];
  /** the value's name (a `_microseconds` field is a duration: mentions in ms or s count too) */
  field: string;
  old: unknown;
  value: unknown;
}

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
const UNITS: Record<string, number> = { µs: 1, us: 1, microsecond: 1, microseconds: 1, ms: 1e3, millisecond: 1e3, milliseconds: 1e3, s: 1e6, sec: 1e6, secs: 1e6, second: 1e6, seconds: 1e6 };

/** Where the comment starts on a line (the first `#` outside a quoted string), or -1. */
function commentStart(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') return i;
  }
  return -1;
}

const isCommentLine = (line: string) => /^\s*#/.test(line);

/** 0-based indices of the lines whose comments describe the field. */
function attachedLines(lines: readonly string[], edit: CommentEdit): number[] {
  const out = new Set<number>();
  const own = edit.fieldLine - 1;
  if (commentStart(lines[own] ?? '') >= 0) out.add(own);
  for (const anchor of [edit.fieldLine, ...edit.enclosingLines]) {
    for (let i = anchor - 2; i >= 0 && isCommentLine(lines[i]); i--) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

/** 1500 -> "1.5"; whole numbers stay whole. */
function formatNumber(n: number): string {
  return String(Number(n.toFixed(6)));
}

function sameCase(word: string, like: string): string {
  if (like === like.toUpperCase()) return word.toUpperCase();
  if (like[0] === like[0].toUpperCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}

/** "instances" after "one" is "instance"; "batch" after "two" is "batches". Only plain lower-case words. */
function agree(noun: string, count: number): string {
  if (!/^[a-z]+$/.test(noun)) return noun;
  const plural = noun.endsWith('s');
  if (count === 1 && plural) return /(ch|sh|x|ss)es$/.test(noun) ? noun.slice(0, -2) : noun.slice(0, -1);
  if (count !== 1 && !plural) return noun + (/(ch|sh|x|s)$/.test(noun) ? 'es' : 's');
  return noun;
}

/** a number not inside another (v2, 1.5.0), and the word after it (a unit may be attached: 2ms) */
const MENTION = /(?<![\w.])(\d+(?:\.\d+)?)(?!\d|\.\d)(\s*)([A-Za-zµ]+)?/g;

/**
 * The nouns that tie a bare number to a field: "2 instances" describes `count`, "2 cores" does not. A
 * number with another noun (or none) is not rewritten: the comment is named in the answer for the user to
 * check, since guessing what "2" means there could turn a true comment into a false one.
 */
const FIELD_NOUNS: Readonly<Record<string, RegExp>> = {
  count: /^(instances?|copy|copies|workers?|sessions?)$/i,
  max_batch_size: /^(requests?|samples?|items?|images?)$/i,
};

/** What a comment says of the old value: the text with its tied mentions rewritten, and whether untied ones remain. */
function rewriteScalar(comment: string, field: string, old: number, value: number): { text: string; untied: boolean } {
  let untied = false;
  const duration = field.endsWith('_microseconds');
  const tied = FIELD_NOUNS[field];
  const noun = (word: string) => (old === 1 || value === 1 ? agree(word, value) : word);
  let out = comment.replace(MENTION, (m, num: string, space: string, word: string | undefined) => {
    const unit = duration && word !== undefined && word in UNITS ? word : undefined;
    if (space === '' && word !== undefined && unit === undefined) return m; // part of a name: 3x3, 2nd
    const scale = unit ? UNITS[unit] : 1;
    if (Number(num) * scale !== old) return m;
    if (unit) return `${formatNumber(value / scale)}${space}${unit}`;
    if (word !== undefined && tied?.test(word)) return `${formatNumber(value)}${space}${noun(word)}`;
    untied = true;
    return m;
  });
  if (!duration && Number.isInteger(old) && old <= 20) {
    out = out.replace(new RegExp(`\\b(${WORDS[old]})\\b(\\s*)([A-Za-z]+)?`, 'gi'), (m, said: string, space: string, word: string | undefined) => {
      if (word === undefined || !tied?.test(word)) {
        untied = true;
        return m;
      }
      const number = Number.isInteger(value) && value >= 0 && value <= 20 ? sameCase(WORDS[value], said) : String(value);
      return `${number}${space}${noun(word)}`;
    });
  }
  return { text: out, untied };
}

/** Whether a comment names a size the old list had and the new one has not. */
function namesDroppedSize(comment: string, old: readonly number[], value: readonly number[]): boolean {
  return [...comment.matchAll(MENTION)].some((m) => !(m[2] === '' && m[3]) && old.includes(Number(m[1])) && !value.includes(Number(m[1])));
}

/**
 * Applies the comment updates for one value change to `text`. Returns the new text (lines may be
 * dropped) and a note per comment changed, for the save's answer.
 */
export function updateComments(text: string, edit: CommentEdit, notes: string[]): string {
  const lines = text.split('\n');
  const drop = new Set<number>();
  for (const i of attachedLines(lines, edit)) {
    const start = commentStart(lines[i]);
    const comment = lines[i].slice(start);
    if (typeof edit.old === 'number' && typeof edit.value === 'number') {
      const { text: next, untied } = rewriteScalar(comment, edit.field, edit.old, edit.value);
      if (next !== comment) {
        lines[i] = lines[i].slice(0, start) + next;
        notes.push(`updated the comment '${comment.trim()}' to '${next.trim()}' (it described the old ${edit.field} ${String(edit.old)})`);
      }
      if (untied) notes.push(`the comment '${next.trim()}' mentions ${String(edit.old)}, the old ${edit.field}, in words the save cannot tie to it: check it still holds`);
    } else if (Array.isArray(edit.old) && Array.isArray(edit.value) && namesDroppedSize(comment, edit.old, edit.value)) {
      if (isCommentLine(lines[i])) drop.add(i);
      else lines[i] = lines[i].slice(0, start).trimEnd();
      notes.push(`dropped the comment '${comment.trim()}' (it described the old ${edit.field} ${JSON.stringify(edit.old)})`);
    }
  }
  return lines.filter((_l, i) => !drop.has(i)).join('\n');
}
