#!/usr/bin/env node
/**
 * `redis-stream-coordinator …` (the package's bin, compiled to dist/cli/cli.js; `npm run cli --
 * …` in a checkout): the operator CLI. Wires the process (argv, env, stdout/stderr, Ctrl-C) to
 * `runCli` and exits with its code.
 */
import { runCli } from './cli-run.js';
import { tokenFilePath } from './cli-token.js';

const interrupted = new AbortController();

const outcome = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  now: Date.now,
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    }),
  signal: interrupted.signal,
  listenForInterrupt: () => {
    // First Ctrl-C ends the live view cleanly (exit 0); a second one kills at once.
    process.once('SIGINT', () => {
      interrupted.abort();
      process.once('SIGINT', () => process.exit(130));
    });
  },
  tokenFile: tokenFilePath(),
  isTTY: process.stdout.isTTY === true,
  errIsTTY: process.stderr.isTTY === true,
});

// `serve` hands the process over to the coordinator, which exits on its own terms.
if (outcome !== 'serving') process.exitCode = outcome;
