/**
 * How the CLI ends: its exit codes (documented in `--help` and the README) and the one failure
 * type that carries them to the dispatcher.
 */

/** Exit codes of the CLI. */
export const EXIT = {
  OK: 0,
  /** Bad command line: unknown command or option, missing argument, invalid value. */
  USAGE: 1,
  /** The API refused the request (4xx other than 401/403): the errorCode is printed. */
  CLIENT_ERROR: 2,
  /** The API failed (5xx) or could not be reached. */
  SERVER_ERROR: 3,
  /** Authentication failed (401) or the role does not allow the request (403). */
  AUTH: 4,
} as const;

/** An outcome that ends the command with a non-zero exit code and a message on stderr. */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** A command-line mistake (exit 1). */
export function usageError(message: string): CliFailure {
  return new CliFailure(EXIT.USAGE, message);
}
