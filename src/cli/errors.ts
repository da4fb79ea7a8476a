/** A command was called with arguments that cannot work: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

// C0 and C1 control characters, DEL and the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * A message as a terminal may print it: a control character from the input it quotes (a run id
 * or prompt key in an answers file) is written as its \uXXXX escape, so an escape sequence in a
 * file cannot retitle, clear or recolour the operator's terminal.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
