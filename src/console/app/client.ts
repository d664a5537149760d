/**
 * The console's admin client: the SDK's typed `AdminClient` (the one the CLI uses) over the
 * console's `api()` fetch, so views never build API paths nor restate response types.
 */
import { AdminClient } from '../../client/admin-client.js';
import { api } from './api.js';

/** Calls with the session's token (none for login: `anonymous`). */
export const admin = new AdminClient((method, path, body, options) =>
  api(method, path, body, options?.anonymous ? null : undefined),
);

/** The same operations with `token` instead of the session's (to look at an offered sign-in). */
export function adminAs(token: string): AdminClient {
  return new AdminClient((method, path, body) => api(method, path, body, token));
}
