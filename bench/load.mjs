// HTTP load generator run as a separate process (so it does not share the server's event
// loop): `node bench/load.mjs <baseUrl> <requestsFile> <concurrency> <durationMs>`.
// requestsFile is JSON: [{ "path": "/x", "body": "..." }, ...], cycled in order.
// Prints one JSON line: { requests, errors, non2xx, seconds, rps, p50Ms, p99Ms }.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [baseUrl, file, concurrencyText, durationText] = process.argv.slice(2);
const requests = JSON.parse(readFileSync(file, 'utf8'));
const concurrency = Number(concurrencyText);
const durationMs = Number(durationText);
const url = new URL(baseUrl);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

let next = 0;
let done = 0;
let errors = 0;
let non2xx = 0;
const latencies = [];
const start = performance.now();
const deadline = start + durationMs;

function send(req) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const r = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: req.path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(req.body) },
      },
      (res) => {
        if (res.statusCode < 200 || res.statusCode >= 300) non2xx++;
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - t0);
          resolve();
        });
      },
    );
    r.on('error', () => {
      errors++;
      resolve();
    });
    r.end(req.body);
  });
}

async function loop() {
  while (performance.now() < deadline) {
    const req = requests[next++ % requests.length];
    await send(req);
    done++;
  }
}

await Promise.all(Array.from({ length: concurrency }, loop));
const seconds = (performance.now() - start) / 1000;
latencies.sort((a, b) => a - b);
const pct = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({ requests: done, errors, non2xx, seconds, rps: done / seconds, p50Ms: pct(0.5), p99Ms: pct(0.99) })}\n`,
);
agent.destroy();
