// Examples run by hand and from schedulers (cron, CI): an error is one line on stderr and a known
// exit code, never a stack trace, so a log line says what went wrong.
// In your own project: import { SightlineError } from '@sightline/sdk';
// The SDK's errors (the API's answer, or SightlineConnectionError naming why it could not be
// reached) carry their one line as the message.
const oneLine = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

/** Any error the script does not handle itself ends it with one line and `code`. */
export function exitOnError(code: number): void {
  process.on('uncaughtException', (error) => fail(oneLine(error), code));
}
