/** The HTTP conformance suite against the built Worker in Miniflare (Upstash store via the REST bridge). */

import { defineConformanceSuite } from './suite.js';
import { startWorkerTarget } from './worker-target.js';

defineConformanceSuite('Cloudflare Worker (Miniflare, Upstash)', startWorkerTarget);
