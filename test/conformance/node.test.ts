/** The HTTP conformance suite against the Node adapter (node/server.ts over the ioredis store). */
import { startNodeTarget } from './node-target.js';
import { defineConformanceSuite } from './suite.js';

defineConformanceSuite('Node adapter (ioredis)', startNodeTarget);
