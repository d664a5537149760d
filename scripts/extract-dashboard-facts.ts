/**
 * Run by hand: `REFERENCE_REPO=<fetched copy> npx tsx scripts/extract-dashboard-facts.ts`.
 * Writes test/fixtures/reference-dashboard-metrics.json: every metric name the reference's four
 * Grafana dashboards and its web console read, with the label names each needs. Facts only
 * (names), never the dashboards themselves; the test in test/ops/reference-metrics.test.ts
 * checks that `/actuator/prometheus` serves each of them.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  consoleMetrics,
  dashboardQueries,
  metricsOf,
  referenceCommit,
  referenceRepo,
} from './reference-dashboards.js';

const OUT = fileURLToPath(new URL('../test/fixtures/reference-dashboard-metrics.json', import.meta.url));

const repo = referenceRepo();
const facts = new Map<string, { labels: Set<string>; usedBy: Set<string> }>();
const note = (name: string, labels: Iterable<string>, by: string) => {
  const f = facts.get(name) ?? { labels: new Set<string>(), usedBy: new Set<string>() };
  for (const l of labels) f.labels.add(l);
  f.usedBy.add(by);
  facts.set(name, f);
};

const queries = dashboardQueries(repo);
for (const q of queries) {
  for (const [name, labels] of metricsOf(q.expr)) note(name, labels, q.dashboard);
}
for (const [name, { labels, file }] of consoleMetrics(repo)) note(name, labels, `console/${file}`);

const fixture = {
  source: `ghkdqhrbals/redis-stream-coordinator@${referenceCommit(repo)}`,
  dashboards: [...new Set(queries.map((q) => q.dashboard))],
  queryCount: queries.length,
  metrics: [...facts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, f]) => ({ name, labels: [...f.labels].sort(), usedBy: [...f.usedBy].sort() })),
};
writeFileSync(OUT, `${JSON.stringify(fixture, null, 2)}\n`);
console.log(`${fixture.metrics.length} metrics from ${queries.length} queries → ${OUT}`);
