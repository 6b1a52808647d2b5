/**
 * An operator's request (the CLI's key, plan and account commands) that breaks a
 * rule; the message says what to fix. `usage` marks a mistake in the command line
 * itself, which the CLI answers with its usage line and exit code 2. Not an API
 * error: the API's errors are the domain errors of data/errors.ts.
 */
export class OperatorRequestError extends Error {
  override name = 'OperatorRequestError';
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}
