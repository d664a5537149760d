/**
 * How the CLI ends: its exit codes (documented in `--help` and docs/cli.md#exit-codes) and the one failure
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

/** What the API answered, when a failure is its answer. */
export interface ApiAnswer {
  status: number;
  errorCode?: string;
}

/** An outcome that ends the command with a non-zero exit code and a message on stderr. */
export class CliFailure extends Error {
  /** The HTTP status and errorCode, for a refusal or failure the API answered. */
  readonly answer: ApiAnswer | undefined;

  constructor(
    readonly exitCode: number,
    message: string,
    answer?: ApiAnswer,
  ) {
    super(message);
    this.name = 'CliFailure';
    this.answer = answer ? { status: answer.status, errorCode: answer.errorCode } : undefined;
  }

  /** The failure as `--json` prints it on stderr: `{error: {exitCode, message, status?, errorCode?}}`. */
  toJSON(): { error: Record<string, unknown> } {
    const error: Record<string, unknown> = { exitCode: this.exitCode, message: this.message };
    if (this.answer) {
      error.status = this.answer.status;
      if (this.answer.errorCode !== undefined) error.errorCode = this.answer.errorCode;
    }
    return { error };
  }
}

/** A command-line mistake (exit 1). */
export function usageError(message: string): CliFailure {
  return new CliFailure(EXIT.USAGE, message);
}
