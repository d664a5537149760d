/**
 * Use-cases of the coordinator (see `coordinator/`): the only layer that does I/O decisions;
 * the protocol itself lives in `core/`.
 */
export * from './coordinator/index.js';
