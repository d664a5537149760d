#!/usr/bin/env node
/**
 * Development launcher of the CLI in a checkout: runs the TypeScript sources (cli/cli.ts)
 * through tsx's ESM loader, registered in this process (no child process: exit codes and Ctrl-C
 * reach the CLI directly), so no build is needed. Not shipped: the published package's `bin` is
 * the compiled dist/cli/cli.js, which runs with plain node.
 */
import { register } from 'tsx/esm/api';

register();
await import(new URL('../cli/cli.ts', import.meta.url).href);
