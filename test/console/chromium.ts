/**
 * A small headless-Chromium driver over the DevTools protocol on `--remote-debugging-pipe`
 * (NUL-separated JSON on file descriptors 3 and 4), so the console's end-to-end tests need no
 * npm dependency and no WebSocket client.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Fails with an actionable message when Chromium is missing (never skips). */
export async function assertChromiumInstalled(): Promise<void> {
  try {
    await access(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `${CHROMIUM_PATH} not found: the console tests need Debian's chromium (apt-get update && apt-get install -y chromium; .ci/run does this)`,
    );
  }
}

/** Flags every run uses: headless, no sandbox (root in CI), nothing phoning home. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
  '--mute-audio',
  '--remote-debugging-pipe',
];

// biome-ignore lint/suspicious/noExplicitAny: DevTools protocol results are untyped JSON.
type Json = any;

interface Pending {
  resolve: (v: Json) => void;
  reject: (e: Error) => void;
  method: string;
}

/** Something the page reported that a test should see: an exception or an error log line. */
export interface PageProblem {
  kind: 'exception' | 'log';
  text: string;
}

/** One headless Chromium process with a fresh profile. */
export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly sessions = new Map<string, (method: string, params: Json) => void>();
  private buffer = '';
  private stderr = '';
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly profileDir: string,
    private readonly input: Writable,
  ) {}

  /** Starts Chromium with a fresh `--user-data-dir`. */
  static async launch(): Promise<Browser> {
    await assertChromiumInstalled();
    const profileDir = await mkdtemp(join(tmpdir(), 'rsc-chromium-'));
    const child = spawn(CHROMIUM_PATH, [...FLAGS, `--user-data-dir=${profileDir}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    });
    const browser = new Browser(child, profileDir, child.stdio[3] as Writable);
    child.stderr?.on('data', (d: Buffer) => {
      browser.stderr = (browser.stderr + d.toString()).slice(-4000);
    });
    (child.stdio[4] as Readable).on('data', (d: Buffer) => browser.receive(d.toString('utf8')));
    child.on('exit', () => {
      browser.exited = true;
      for (const p of browser.pending.values()) {
        p.reject(new Error(`chromium exited during ${p.method}: ${browser.stderr.trim().slice(-1000)}`));
      }
      browser.pending.clear();
    });
    // Fails fast (with Chromium's own words) when the browser cannot start.
    await browser.send('Browser.getVersion', {}, undefined, 20_000);
    return browser;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end = this.buffer.indexOf('\0');
    while (end >= 0) {
      const text = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      end = this.buffer.indexOf('\0');
      const msg = JSON.parse(text) as Json;
      if (typeof msg.id === 'number') {
        const p = this.pending.get(msg.id);
        if (!p) continue;
        this.pending.delete(msg.id);
        if (msg.error)
          p.reject(new Error(`${p.method}: ${msg.error.message} ${msg.error.data ?? ''}`.trim()));
        else p.resolve(msg.result);
      } else if (msg.sessionId) {
        this.sessions.get(msg.sessionId)?.(msg.method, msg.params);
      }
    }
  }

  /** Sends one protocol command (to a page when `sessionId` is given). */
  send(method: string, params: Json = {}, sessionId?: string, timeoutMs = 15_000): Promise<Json> {
    if (this.exited)
      return Promise.reject(new Error(`chromium has exited: ${this.stderr.trim().slice(-1000)}`));
    const id = this.nextId++;
    const msg: Json = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.input.write(`${JSON.stringify(msg)}\0`);
    });
  }

  /** Opens a new tab (own sessionStorage) with the given viewport. */
  async newPage(width = 1366, height = 900): Promise<Page> {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, targetId, sessionId, width, height);
    this.sessions.set(sessionId, (method, params) => page.onEvent(method, params));
    await Promise.all([
      page.send('Page.enable'),
      page.send('Runtime.enable'),
      page.send('Log.enable'),
      page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }),
    ]);
    return page;
  }

  /** Closes the browser (then kills it if it lingers) and removes its profile. */
  async close(): Promise<void> {
    if (!this.exited) {
      const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
      await this.send('Browser.close', {}, undefined, 5000).catch(() => undefined);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    await rm(this.profileDir, { recursive: true, force: true });
  }
}

/** One tab. Every wait is bounded. */
export class Page {
  /** Exceptions and error-level log lines (CSP violations included), network errors excepted. */
  readonly problems: PageProblem[] = [];

  constructor(
    private readonly browser: Browser,
    private readonly targetId: string,
    private readonly sessionId: string,
    private readonly width: number,
    private readonly height: number,
  ) {}

  /** Protocol command on this tab. */
  send(method: string, params: Json = {}): Promise<Json> {
    return this.browser.send(method, params, this.sessionId);
  }

  /** Collects what a test should fail on. */
  onEvent(method: string, params: Json): void {
    if (method === 'Runtime.exceptionThrown') {
      const d = params.exceptionDetails;
      this.problems.push({ kind: 'exception', text: d.exception?.description ?? d.text });
    } else if (method === 'Log.entryAdded') {
      const e = params.entry;
      // A 401 answer is logged by the browser as a failed resource load; the console expects those.
      if (e.level === 'error' && e.source !== 'network') this.problems.push({ kind: 'log', text: e.text });
    }
  }

  /** Navigates and waits until the document has loaded. */
  async goto(url: string): Promise<void> {
    const res = await this.send('Page.navigate', { url });
    if (res.errorText) throw new Error(`navigation to ${url} failed: ${res.errorText}`);
    await this.waitFor("document.readyState === 'complete'", `load of ${url}`);
  }

  /** Evaluates `expression` in the page (awaiting promises) and returns its JSON value. */
  async evaluate<T = Json>(expression: string): Promise<T> {
    const res = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (res.exceptionDetails) {
      throw new Error(
        `evaluate failed: ${res.exceptionDetails.exception?.description ?? res.exceptionDetails.text}`,
      );
    }
    return res.result.value as T;
  }

  /** Polls `expression` until it is truthy; on timeout reports what the page shows. */
  async waitFor(expression: string, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.evaluate<boolean>(`Boolean(${expression})`).catch(() => false)) return;
      if (Date.now() > deadline) {
        const shown = await this.evaluate<string>(
          "document.body ? document.body.getAttribute('data-view') + ' | ' + document.body.innerText.slice(0, 1500) : ''",
        ).catch((e: Error) => e.message);
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what} (${expression}); page: ${shown}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits until the console has rendered `view` with data at least `refreshes` times. */
  async waitForView(view: string, refreshes = 1, timeoutMs = 10_000): Promise<void> {
    await this.waitFor(
      `document.body.getAttribute('data-view') === ${JSON.stringify(view)} && Number(document.body.getAttribute('data-refreshes') || 0) >= ${refreshes}`,
      `view ${view} after ${refreshes} refresh(es)`,
      timeoutMs,
    );
  }

  /** Clicks the element `selector` matches (fails when none does). */
  async click(selector: string): Promise<void> {
    const ok = await this.evaluate<boolean>(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; el.click(); return true; })()`,
    );
    if (!ok) throw new Error(`nothing matches ${selector}`);
  }

  /** Focuses `selector`, clears it and types `text` as keyboard input. */
  async type(selector: string, text: string): Promise<void> {
    const ok = await this.evaluate<boolean>(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; el.focus(); el.value = ''; return true; })()`,
    );
    if (!ok) throw new Error(`nothing matches ${selector}`);
    await this.send('Input.insertText', { text });
  }

  /** Selects `value` in the `<select>` `selector` and fires `change`, as a user would. */
  async select(selector: string, value: string): Promise<void> {
    const ok = await this.evaluate<boolean>(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; el.value = ${JSON.stringify(value)}; el.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`,
    );
    if (!ok) throw new Error(`nothing matches ${selector}`);
  }

  /** Emulates the OS colour scheme. */
  async colorScheme(scheme: 'light' | 'dark'): Promise<void> {
    await this.send('Emulation.setEmulatedMedia', {
      features: [{ name: 'prefers-color-scheme', value: scheme }],
    });
  }

  /** Writes a PNG of the whole page (up to 4000 px tall) to `path`. */
  async screenshot(path: string): Promise<void> {
    // From the top, or the sticky header is painted where the page happens to be scrolled.
    await this.evaluate('window.scrollTo(0, 0)');
    const metrics = await this.send('Page.getLayoutMetrics');
    const height = Math.min(
      4000,
      Math.max(this.height, Math.ceil(metrics.cssContentSize?.height ?? this.height)),
    );
    const shot = await this.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: this.width, height, scale: 1 },
    });
    await writeFile(path, Buffer.from(shot.data, 'base64'));
  }

  /** Closes the tab. */
  async close(): Promise<void> {
    await this.browser.send('Target.closeTarget', { targetId: this.targetId }).catch(() => undefined);
  }
}
