/** A command was called with arguments that cannot work: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
