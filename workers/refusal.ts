/**
 * The answer of a Worker that must not serve: 503 with an ErrorResponse body that says what to
 * configure (binding names only, never values). docs/security.md: without credentials the Worker serves
 * only when open mode is asked for explicitly.
 */

/** Error code of the refusal (outside the coordinator's table: no route ever runs). */
const NOT_CONFIGURED = 'COORDINATOR_NOT_CONFIGURED';

/** What to do when no credentials are configured. */
export const NO_CREDENTIALS =
  'no credentials configured: set COORDINATOR_ADMIN_PASSWORD (or COORDINATOR_ADMIN_PASSWORD_HASH with ' +
  'COORDINATOR_TOKEN_SECRET) or COORDINATOR_USERS as secrets (wrangler secret put <NAME>), or set ' +
  'COORDINATOR_OPEN_MODE=true to serve without authentication';

/** The 503 response for `problems`. */
export function refusalResponse(problems: readonly string[]): Response {
  const body = {
    status: 'SERVICE_UNAVAILABLE',
    errorCode: NOT_CONFIGURED,
    message: `the coordinator Worker is not configured: ${problems.join('; ')}`,
  };
  return new Response(JSON.stringify(body), {
    status: 503,
    headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' },
  });
}
