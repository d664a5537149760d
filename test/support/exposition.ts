/**
 * Test support (used only by `*.test.ts`): a strict reader of the Prometheus text exposition
 * format 0.0.4, so tests check the format itself (HELP/TYPE before samples, escaping) and read values.
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition. */
export interface Exposition {
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);

function parseValue(raw: string): number {
  if (raw === '+Inf') return Number.POSITIVE_INFINITY;
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY;
  if (raw === 'NaN') return Number.NaN;
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`bad sample value ${raw}`);
  return Number(raw);
}

function parseLabels(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < body.length) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(body.slice(i));
    if (!m) throw new Error(`bad label at ${body.slice(i)}`);
    i += m[0].length;
    let value = '';
    for (;;) {
      const ch = body[i++];
      if (ch === undefined) throw new Error('unterminated label value');
      if (ch === '"') break;
      if (ch === '\\') {
        const esc = body[i++];
        if (esc === 'n') value += '\n';
        else if (esc === '\\' || esc === '"') value += esc;
        else throw new Error(`bad escape \\${esc}`);
      } else value += ch;
    }
    if (m[1]! in out) throw new Error(`duplicate label ${m[1]}`);
    out[m[1]!] = value;
    if (body[i] === ',') i++;
    else if (i < body.length) throw new Error(`expected , at ${body.slice(i)}`);
  }
  return out;
}

/** The family a sample belongs to (histogram and summary samples carry suffixes). */
function familyOf(name: string, types: Map<string, string>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    const type = types.get(base);
    if (!name.endsWith(suffix)) continue;
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return name;
}

/** Parses and validates `text`; throws on any format violation. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('# HELP ')) {
      const [, name, ...rest] = line.split(' ').slice(1);
      if (help.has(name!)) throw new Error(`second HELP for ${name}`);
      help.set(name!, rest.join(' '));
    } else if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type!))
        throw new Error(`bad type ${type}`);
      if (types.has(name!)) throw new Error(`second TYPE for ${name}`);
      types.set(name!, type!);
    } else if (line.startsWith('#') || line === '') {
      throw new Error(`unexpected line '${line}'`);
    } else {
      const m = SAMPLE.exec(line);
      if (!m) throw new Error(`bad sample line '${line}'`);
      const name = m[1]!;
      if (!types.has(familyOf(name, types))) throw new Error(`sample ${name} before its TYPE`);
      samples.push({ name, labels: m[2] ? parseLabels(m[2]) : {}, value: parseValue(m[3]!) });
    }
  }
  return { types, help, samples };
}

/** The value of the one sample named `name` whose labels include `labels` (undefined when none). */
export function sampleValue(
  exp: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const hits = exp.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]?.value;
}

/** Sum of every sample named `name` whose labels include `labels`. */
export function sampleSum(exp: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exp.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}
