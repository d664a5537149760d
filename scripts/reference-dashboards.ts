/**
 * Reads the reference coordinator's Grafana dashboards and web console from a fetched copy of
 * its repository (`REFERENCE_REPO`: a bare git directory or a checkout), at run time only —
 * nothing of theirs is stored here. Shared by `extract-dashboard-facts.ts` (which writes the
 * metric names and label names we must serve) and `check-dashboards.ts` (which evaluates the
 * queries against a real Prometheus).
 */
import { execFileSync } from 'node:child_process';

/** Where the dashboards live in the reference repository. */
export const DASHBOARD_DIR = 'monitoring/grafana/dashboards';
/** Where the reference web console's scripts live. */
export const CONSOLE_DIR = 'coordinator-server/src/main/resources/static/console';
/** Prefix of the reference's metric names. */
export const METRIC_PREFIX = 'redis_stream_coord_';

/** One PromQL expression of a dashboard: a panel target or a template variable's query. */
export interface DashboardQuery {
  dashboard: string;
  /** Panel title, or `variable <name>`. */
  where: string;
  expr: string;
  /** `label_values(metric, label)` of a variable, kept apart: it is not PromQL. */
  labelValues?: { metric: string; label: string };
}

/** The repository path from `REFERENCE_REPO`, or an exit with a hint. */
export function referenceRepo(): string {
  const repo = process.env.REFERENCE_REPO;
  if (!repo) {
    console.error(
      'REFERENCE_REPO is not set: point it at a fetched copy of ghkdqhrbals/redis-stream-coordinator',
    );
    process.exit(2);
  }
  return repo;
}

function git(repo: string, args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** The commit the files are read from. */
export function referenceCommit(repo: string): string {
  return git(repo, ['rev-parse', 'HEAD']).trim();
}

/** Files under `dir` at HEAD whose names end with `ext`. */
export function listFiles(repo: string, dir: string, ext: string): string[] {
  return git(repo, ['ls-tree', '-r', '--name-only', 'HEAD', `${dir}/`])
    .split('\n')
    .filter((f) => f.endsWith(ext))
    .sort();
}

/** One file's text at HEAD. */
export function readFile(repo: string, path: string): string {
  return git(repo, ['show', `HEAD:${path}`]);
}

interface Panel {
  title?: string;
  panels?: Panel[];
  targets?: Array<{ expr?: string; datasource?: { type?: string } }>;
}

/** Every PromQL expression of every dashboard (panel targets and Prometheus variables). */
export function dashboardQueries(repo: string): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  for (const path of listFiles(repo, DASHBOARD_DIR, '.json')) {
    const dashboard = path.slice(DASHBOARD_DIR.length + 1);
    const doc = JSON.parse(readFile(repo, path)) as {
      panels?: Panel[];
      templating?: { list?: Array<{ name: string; query?: unknown }> };
    };
    const walk = (panels: Panel[] | undefined): void => {
      for (const p of panels ?? []) {
        walk(p.panels);
        for (const t of p.targets ?? []) {
          if (typeof t.expr === 'string' && t.expr.trim() !== '') {
            out.push({ dashboard, where: p.title ?? '(untitled)', expr: t.expr });
          }
        }
      }
    };
    walk(doc.panels);
    for (const v of doc.templating?.list ?? []) {
      const q = v.query;
      const text = typeof q === 'string' ? q : (q as { query?: unknown } | undefined)?.query;
      if (typeof text !== 'string') continue;
      const m = /^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$/.exec(
        text.trim(),
      );
      if (!m) continue;
      out.push({
        dashboard,
        where: `variable ${v.name}`,
        expr: `group by (${m[2]}) (${m[1]})`,
        labelValues: { metric: m[1]!, label: m[2]! },
      });
    }
  }
  return out;
}

/**
 * The metric names an expression reads and the label names it needs on each: matchers in
 * braces, and the `by (…)` labels of the aggregations around it.
 */
export function metricsOf(expr: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const byLabels = new Set<string>();
  for (const m of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
    for (const l of m[1]!.split(',')) if (l.trim()) byLabels.add(l.trim());
  }
  const selector = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{([^}]*)\})?/g;
  for (const m of expr.matchAll(selector)) {
    const name = m[1]!;
    if (!name.startsWith(METRIC_PREFIX)) continue;
    const labels = out.get(name) ?? new Set<string>();
    for (const lm of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)) labels.add(lm[1]!);
    for (const l of byLabels) labels.add(l);
    out.set(name, labels);
  }
  return out;
}

/**
 * Metric names the reference console's scripts read from `/actuator/prometheus`, with the label
 * names its parser looks up (`labels.<name>`).
 */
export function consoleMetrics(repo: string): Map<string, { labels: Set<string>; file: string }> {
  const out = new Map<string, { labels: Set<string>; file: string }>();
  for (const path of listFiles(repo, CONSOLE_DIR, '.js')) {
    const text = readFile(repo, path);
    if (!text.includes('/actuator/prometheus')) continue;
    const labels = new Set<string>();
    for (const m of text.matchAll(/\blabels\.([a-zA-Z_][a-zA-Z0-9_]*)/g)) labels.add(m[1]!);
    for (const m of text.matchAll(new RegExp(`${METRIC_PREFIX}[a-zA-Z0-9_]+`, 'g'))) {
      out.set(m[0], { labels, file: path.slice(CONSOLE_DIR.length + 1) });
    }
  }
  return out;
}
