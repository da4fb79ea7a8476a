// Examples run by hand and from schedulers (cron, CI): an error is one line on stderr and a known
// exit code, never a stack trace, so a log line says what went wrong.
// In your own project: import { SightlineError } from '@sightline/sdk';
import { SightlineError } from '../clients/typescript/src/index.ts';

/** The API's answer, or why the service could not be reached (fetch hides that in `cause`). */
function oneLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return error instanceof SightlineError || !cause ? error.message : `${error.message}: ${cause}`;
}

export function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

/** Any error the script does not handle itself ends it with one line and `code`. */
export function exitOnError(code: number): void {
  process.on('uncaughtException', (error) => fail(oneLine(error), code));
}
