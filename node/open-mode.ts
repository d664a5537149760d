/**
 * Open mode (no credentials) is only safe on loopback (SPEC §9). Authentication arrives in a
 * later issue, so for now every Node start is open mode and a non-loopback HOST is refused.
 */
import { ConfigError, type CoordinatorConfig } from '../src/config.js';
import type { LogFn } from './logger.js';
import { isLoopbackHost } from './net.js';

/** Env variables that will configure credentials (SPEC §9); not honoured by this build yet. */
export const CREDENTIAL_ENV_VARS = [
  'COORDINATOR_ADMIN_USERNAME',
  'COORDINATOR_ADMIN_PASSWORD',
  'COORDINATOR_ADMIN_PASSWORD_HASH',
  'COORDINATOR_USERS',
] as const;

/** The warning logged at every open-mode start. */
export const OPEN_MODE_WARNING = 'no credentials configured: open mode, binding loopback only';

/** Throws ConfigError naming HOST when open mode would expose the API beyond this machine. */
export function assertOpenModeBindable(config: CoordinatorConfig): void {
  if (!isLoopbackHost(config.host)) {
    throw new ConfigError(
      `invalid configuration: HOST: ${config.host} is not a loopback address; no credentials are ` +
        'configured (open mode), so the coordinator only binds loopback (e.g. HOST=127.0.0.1)',
    );
  }
}

/**
 * `assertOpenModeBindable`, then the open-mode warning (and a note when credential variables
 * are set but not honoured yet).
 */
export function enforceOpenMode(
  config: CoordinatorConfig,
  env: Record<string, string | undefined>,
  log: LogFn,
): void {
  assertOpenModeBindable(config);
  log('warn', OPEN_MODE_WARNING, { host: config.host });
  const ignored = CREDENTIAL_ENV_VARS.filter((k) => env[k]);
  if (ignored.length > 0) {
    // Never echo the values: only the names of the variables.
    log('warn', 'credential variables are set but authentication is not available in this build yet', {
      ignored,
    });
  }
}
