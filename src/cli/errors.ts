import { isControl } from '../domain/catalog.ts';

/** A command was called with arguments that cannot work: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A message as a terminal may print it: a control character from the input it quotes (a run id
 * or prompt key in an answers file) is written as its \uXXXX escape, so an escape sequence in a
 * file cannot retitle, clear or recolour the operator's terminal.
 */
export function terminalSafe(text: string): string {
  let safe = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    safe += isControl(code) && c !== '\t' ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return safe;
}
