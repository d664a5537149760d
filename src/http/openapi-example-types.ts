/** The shape of one operation's example (src/http/generated/openapi-examples.ts). */
export interface OperationExample {
  /** Path parameters, decoded. */
  params?: Record<string, string>;
  /** Query parameters. */
  query?: Record<string, string>;
  /** The JSON body sent. */
  request?: unknown;
  /** The answer: JSON, or the first characters of a textual one. */
  response?: unknown;
}
