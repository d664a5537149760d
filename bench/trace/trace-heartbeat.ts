/**
 * Traces one heartbeat through the project's files: runs `target.ts` under the V8 inspector,
 * steps into every statement between its `debugger` pairs (dependencies and Node's internals
 * blackboxed, so only project code is stepped), and prints, per traced heartbeat, the files
 * entered in order (consecutive steps in one file collapsed), the number of steps, and how often
 * the trace came back to a file it had left. Usage: `npx tsx bench/trace/trace-heartbeat.ts`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const root = fileURLToPath(new URL('../..', import.meta.url));
const target = process.argv[2] ?? fileURLToPath(new URL('./target.ts', import.meta.url));
/** Steps per heartbeat at most, dependencies included (a runaway trace stops here). */
const MAX_STEPS = 300_000;
/** Files of the project (the rest is stepped through but not recorded). */
const PROJECT = /^(src|node|workers|cli|test|bench)\//;

const child = spawn(process.execPath, ['--inspect-brk=127.0.0.1:0', '--import', 'tsx', target], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'pipe'],
});
const wsUrl = await new Promise<string>((resolve, reject) => {
  let text = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    const m = /ws:\/\/\S+/.exec(text);
    if (m) resolve(m[0]);
  });
  child.on('exit', () => reject(new Error(`target exited before the inspector answered:\n${text}`)));
});

const ws = new WebSocket(wsUrl);
await new Promise((r) => ws.once('open', r));
let nextId = 1;
const pending = new Map<number, (result: unknown) => void>();
const send = (method: string, params: object = {}) =>
  new Promise<unknown>((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });

interface Trace {
  /** Steps taken, dependencies included. */
  all: number;
  /** Steps in project files. */
  steps: number;
  files: string[];
}
const traces: Trace[] = [];
let current: Trace | null = null;
const scripts = new Map<string, string>();

/**
 * The project-relative path of a parsed script: its URL, or for a module tsx compiled (no URL),
 * the source its inline source map names.
 */
function scriptFile(p: { url: string; sourceMapURL?: string }): string {
  let url = p.url;
  const map = p.sourceMapURL ?? '';
  if (url === '' && map.startsWith('data:application/json;base64,')) {
    const json = JSON.parse(Buffer.from(map.slice(map.indexOf(',') + 1), 'base64').toString());
    url = json.sources?.[0] ?? '';
  }
  return url.startsWith('file://') ? fileURLToPath(url).slice(root.length) : url;
}

const sources = new Map<string, string[]>();
/** Whether the pause at `loc` sits on a `debugger` statement of the target. */
async function atDebuggerStatement(loc: { scriptId: string; lineNumber: number; columnNumber: number }) {
  let lines = sources.get(loc.scriptId);
  if (!lines) {
    const r = (await send('Debugger.getScriptSource', { scriptId: loc.scriptId })) as {
      scriptSource: string;
    };
    lines = r.scriptSource.split('\n');
    sources.set(loc.scriptId, lines);
  }
  return (lines[loc.lineNumber] ?? '').startsWith('debugger', loc.columnNumber);
}

ws.on('message', (data: Buffer) => {
  onMessage(JSON.parse(data.toString())).catch((e) => {
    console.error('tracer failed:', e);
    child.kill('SIGKILL');
  });
});

// biome-ignore lint/suspicious/noExplicitAny: CDP messages are read field by field.
async function onMessage(msg: any): Promise<void> {
  if (msg.id !== undefined) {
    if (msg.error) console.error(`inspector refused a call: ${JSON.stringify(msg.error)}`);
    pending.get(msg.id)?.(msg.result);
    pending.delete(msg.id);
    return;
  }
  if (msg.method === 'Debugger.scriptParsed') scripts.set(msg.params.scriptId, scriptFile(msg.params));
  if (msg.method !== 'Debugger.paused') return;
  const frame = msg.params.callFrames[0];
  const file = scripts.get(frame.location.scriptId) ?? '';
  if (msg.params.reason === 'Break on start') {
    void send('Debugger.resume');
    return;
  }
  const isMarker = file === 'bench/trace/target.ts' && (await atDebuggerStatement(frame.location));
  if (isMarker && current === null) {
    current = { all: 0, steps: 0, files: [] };
    void send('Debugger.stepInto');
    return;
  }
  if (current && (isMarker || current.all >= MAX_STEPS)) {
    traces.push(current);
    current = null;
    void send('Debugger.resume');
    return;
  }
  if (current) {
    current.all++;
    if (!PROJECT.test(file)) {
      // A dependency or Node's internals: back out to the project frame that called it.
      void send('Debugger.stepOut');
      return;
    }
    current.steps++;
    if (current.files.at(-1) !== file) current.files.push(file);
    void send('Debugger.stepInto');
    return;
  }
  void send('Debugger.resume');
}

await send('Runtime.enable');
await send('Debugger.enable');
await send('Debugger.setBlackboxPatterns', { patterns: ['node_modules', 'node:', 'internal'] });
await send('Runtime.runIfWaitingForDebugger');
// A process started with --inspect-brk waits for the debugger to leave before it exits.
child.stderr!.on('data', (chunk: Buffer) => {
  if (chunk.toString().includes('Waiting for the debugger to disconnect')) ws.close();
});
await new Promise((r) => child.once('exit', r));
ws.close();

const names = ['steady heartbeat (fast path)', 'join of a new member (full path)'];
traces.forEach((t, i) => {
  const inner = t.files.filter((f) => f !== 'bench/trace/target.ts');
  const seen = new Set<string>();
  let returns = 0;
  inner.forEach((f) => {
    if (seen.has(f)) returns++;
    seen.add(f);
  });
  console.log(`\n## ${names[i] ?? `trace ${i + 1}`}`);
  console.log(
    `steps in project code: ${t.steps}; file visits: ${inner.length}; distinct files: ${seen.size}; returns to a file left earlier: ${returns}`,
  );
  console.log(inner.map((f, j) => `${j + 1}. ${f}`).join('\n'));
});
