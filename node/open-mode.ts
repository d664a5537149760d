/**
 * Open mode (no credentials) is only safe on loopback (docs/security.md): without credentials a
 * non-loopback HOST is refused and every start warns. With credentials any HOST is allowed.
 */
import { ConfigError, type CoordinatorConfig } from '../src/config.js';
import type { LogFn } from './logger.js';
import { isLoopbackHost } from './net.js';

/** The warning logged at every open-mode start. */
export const OPEN_MODE_WARNING = 'no credentials configured: open mode, binding loopback only';

/** The line logged at every authenticated start (counts and switches only, never secrets). */
export const AUTH_ENABLED_MESSAGE = 'authentication enabled';

/** Throws ConfigError naming HOST when open mode would expose the API beyond this machine. */
export function assertOpenModeBindable(config: CoordinatorConfig): void {
  if (config.auth !== null) return;
  if (!isLoopbackHost(config.host)) {
    throw new ConfigError(
      `invalid configuration: HOST: ${config.host} is not a loopback address; no credentials are ` +
        'configured (open mode), so the coordinator only binds loopback (e.g. HOST=127.0.0.1)',
    );
  }
}

/** `assertOpenModeBindable`, then the open-mode warning, or a note that authentication is on. */
export function enforceOpenMode(config: CoordinatorConfig, log: LogFn): void {
  assertOpenModeBindable(config);
  if (config.auth === null) {
    log('warn', OPEN_MODE_WARNING, { host: config.host });
    return;
  }
  log('info', AUTH_ENABLED_MESSAGE, {
    users: config.auth.users.length,
    memberApiAuthenticated: config.auth.authenticateMemberApi,
    rateLimitPerMinute: config.rateLimitAdminMutationsPerMinute,
  });
}
