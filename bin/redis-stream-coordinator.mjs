#!/usr/bin/env node
/**
 * Launcher of the `redis-stream-coordinator` CLI: the package ships TypeScript sources, so the
 * CLI runs through tsx's ESM loader, registered in this process (no child process: exit codes
 * and Ctrl-C reach the CLI directly).
 */
import { register } from 'tsx/esm/api';

register();
await import(new URL('../node/cli.ts', import.meta.url).href);
