import { redactSecrets } from '../auth/redact.ts';
import { isControl } from '../domain/catalog.ts';

/** A command was called with arguments that cannot work: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

// A key's secret given alone (prefix and identifier cut off: `keys revoke <secret>`, a secret
// pasted into the wrong option), whole, cut or run on: 24 letters and digits or more with capitals
// and small letters among them (what is left of the 32 random characters then is too much to
// guess). A slug (small letters) or a hash (hex) is not masked; a run id, file name or name of 24
// such characters or more in mixed case, without spaces or other signs, is.
const BARE_SECRET = /[0-9A-Za-z]{24,}/g;
const looksRandom = (run: string) => /[A-Z]/.test(run) && /[a-z]/.test(run);

/**
 * A message as a terminal may print it: a control character from the input it quotes (a run id
 * or prompt key in an answers file) is written as its \uXXXX escape, so an escape sequence in a
 * file cannot retitle, clear or recolour the operator's terminal; and an API key it quotes (a
 * mistaken argument or option) is masked down to its identifier, a bare secret wholly.
 */
export function printable(text: string): string {
  const masked = redactSecrets(text).replace(BARE_SECRET, (run) => (looksRandom(run) ? '…[redacted]' : run));
  let safe = '';
  for (const c of masked) {
    const code = c.charCodeAt(0);
    safe += isControl(code) && c !== '\t' ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return safe;
}
