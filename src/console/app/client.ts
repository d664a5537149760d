/**
 * The console's admin client: the SDK's typed `AdminClient` (the one the CLI uses) over the
 * console's `api()` fetch, so views never build API paths nor restate response types.
 */
import { AdminClient } from '../../client/admin-client.js';
import { api } from './api.js';
import type { ConsumerShardProgressJson } from './api-types.js';
import { groupPath } from './format.js';

/** Calls with the session's token (none for login: `anonymous`). */
export const admin = new AdminClient((method, path, body, options) =>
  api(method, path, body, options?.anonymous ? null : undefined),
);

/** The same operations with `token` instead of the session's (to look at an offered sign-in). */
export function adminAs(token: string): AdminClient {
  return new AdminClient((method, path, body) => api(method, path, body, token));
}

/**
 * `GET /monitoring/…/consumption`: each member's last reported progress per shard, with what it
 * holds unacknowledged (the SDK's `AdminClient` has no method for it).
 */
export function consumption(p: string, g: string): Promise<{ progress: ConsumerShardProgressJson[] }> {
  return api('GET', '/monitoring' + groupPath(p, g) + '/consumption');
}
