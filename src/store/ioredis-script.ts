/**
 * The script runner over an ioredis client, where the script tests import it from; it lives with
 * the ioredis port (src/redis/ioredis-port.ts).
 */
export { ioredisScriptRunner } from '../redis/ioredis-port.js';
