/**
 * Conventions of kubectl and gh that need no coordinator, each run as a real child process:
 * `completion bash|zsh|fish` prints a script naming every command (the bash one completes when
 * sourced), and an unknown command, sub-command, option or format suggests the closest known
 * one (exit 1, as every usage error).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from './cli-process.js';

vi.setConfig({ testTimeout: 120_000 });

/** Nothing listens here: a command that tried to send would fail with exit 3, not 1. */
const NOWHERE = { RSC_URL: 'http://127.0.0.1:9' };

/** The command names `--help` lists (first word of each line under "Commands:"). */
function helpCommands(help: string): string[] {
  const section = help.split('Commands:\n')[1]?.split('\n\n')[0] ?? '';
  const lines = section.split('\n').filter((l) => /^ {2}\S/.test(l));
  return [...new Set(lines.map((l) => l.trim().split(/\s+/)[0]!))];
}

/** What the bash script completes for the words typed so far (the last one being completed). */
function bashComplete(script: string, words: string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const run = spawnSync(
    'bash',
    [
      '-c',
      `${script}\nCOMP_WORDS=(redis-stream-coordinator ${quoted}); COMP_CWORD=${words.length}; COMP_LINE="\${COMP_WORDS[*]}"; _redis_stream_coordinator; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter(Boolean).sort();
}

describe('cli > shell completion', () => {
  it('prints a bash, zsh and fish script naming every command of --help', async () => {
    const [help, bash, zsh, fish, unknown] = await Promise.all([
      runCli(['--help'], NOWHERE),
      runCli(['completion', 'bash'], NOWHERE),
      runCli(['completion', 'zsh'], NOWHERE),
      runCli(['completion', 'fish'], NOWHERE),
      runCli(['completion', 'powershell'], NOWHERE),
    ]);
    const commands = helpCommands(help.stdout);
    expect(commands).toEqual(expect.arrayContaining(['streams', 'scale', 'watch', 'completion']));
    for (const script of [bash, zsh, fish]) {
      expect(script.code, script.stderr).toBe(0);
      for (const c of commands) expect(script.stdout).toMatch(new RegExp(`\\b${c}\\b`));
    }
    expect(zsh.stdout).toMatch(/^#compdef redis-stream-coordinator/);
    expect(fish.stdout).toContain('complete -c redis-stream-coordinator');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('completion needs one of: bash, zsh, fish');
  });

  it('completes commands, sub-commands, options and formats when sourced in bash', async () => {
    const { stdout: script } = await runCli(['completion', 'bash'], NOWHERE);
    expect(bashComplete(script, ['str'])).toEqual(['streams']);
    expect(bashComplete(script, ['streams', ''])).toEqual(['create', 'delete', 'list']);
    expect(bashComplete(script, ['--url', 'http://x', 'mi'])).toEqual(['migrations']);
    expect(bashComplete(script, ['members', 'p', 'g', '-o', ''])).toEqual(['json', 'table', 'wide', 'yaml']);
    expect(bashComplete(script, ['groups', 'delete', 'p', 'g', '--fo'])).toEqual(['--force']);
    expect(bashComplete(script, ['completion', ''])).toEqual(['bash', 'fish', 'zsh']);
  });
});

describe('cli > did you mean', () => {
  it('suggests the closest command, sub-command, option and format, exiting 1 without sending', async () => {
    const [command, sub, option, format, far, asJson] = await Promise.all([
      runCli(['scael', 'orders', '8', '--reason', 'x'], NOWHERE),
      runCli(['streams', 'lsit'], NOWHERE),
      runCli(['groups', 'delete', 'p', 'g', '--reason', 'x', '--forse'], NOWHERE),
      runCli(['members', 'p', 'g', '-o', 'wdie'], NOWHERE),
      runCli(['frobnicate'], NOWHERE),
      runCli(['membres', 'p', 'g', '--json'], NOWHERE),
    ]);
    for (const r of [command, sub, option, format, far, asJson]) expect(r.code, r.stderr).toBe(1);
    expect(command.stderr).toMatch(/^error: unknown command 'scael'; did you mean 'scale'\?$/m);
    expect(sub.stderr).toContain("did you mean 'list'?");
    expect(option.stderr).toMatch(/^error: unknown option '--forse'; did you mean '--force'\?$/m);
    expect(format.stderr).toContain("did you mean 'wide'?");
    expect(far.stderr).toMatch(/^error: unknown command 'frobnicate'$/m);
    expect(JSON.parse(asJson.stderr).error.message).toBe(
      "unknown command 'membres'; did you mean 'members'?",
    );
  });
});
