/**
 * `--help` text of the CLI (commands, options, environment and exit codes), its `--version`, and
 * the command names and sub-commands that completion scripts and "did you mean" draw on.
 */
import { readFileSync } from 'node:fs';

/** Program name as installed by the package's `bin`. */
export const PROGRAM = 'redis-stream-coordinator';

/** One line of usage per command, by command name. */
const COMMAND_USAGE: Readonly<Record<string, string>> = {
  serve:
    'serve [--port N] [--host H]                      run the coordinator here (env config, as npm start)',
  streams:
    'streams list                                     every stream: shards, groups, live members\n' +
    '  streams create <prefix> [--shards N] [--group G]   create a stream and its first group [--reason R]\n' +
    '  streams delete <prefix> --reason R [--force]     delete it, its groups and shard keys (ADMIN)',
  groups:
    'groups list [<prefix>]                           every group (of one stream): state, members\n' +
    '  groups get <prefix> <group>                      show a group\n' +
    '  groups delete <prefix> <group> --reason R [--force] delete its coordination metadata',
  scale: 'scale <prefix> <n> --reason R [--group G]        reshard the stream to n shards (0 drains it)',
  repair:
    'repair <prefix> <group> --mode rebuild|reset [--reason R]  repair a group reported corrupt (ADMIN)',
  migrations:
    "migrations list <prefix> <group>                 a group's migrations, newest first\n" +
    '  migrations get <prefix> <group> <id>             show a migration\n' +
    '  migrations rollback <prefix> <group> <id> --reason R  roll back the active migration',
  members: 'members <prefix> <group>                        members with state, shards and lease',
  assignments:
    'assignments <prefix> <group>                    target / current / revoking shards per member',
  offsets:
    'offsets <prefix> <group>                        per-shard length, pending, lag and owners\n' +
    '  offsets reset <prefix> <group> --to earliest|latest|<time>|<id> [--shards 0,2] [--execute]\n' +
    '                                                   replay or skip records (a dry run unless --execute)',
  watch: 'watch <prefix> <group> [--interval MS] [--iterations N]  live view until Ctrl-C',
  login:
    'login [--print]                                  get a bearer token for --url (stored 0600, or printed)',
  logout: 'logout [--all]                                   forget the token stored for --url (or every one)',
  completion:
    'completion bash|zsh|fish                         print a shell completion script (see docs/cli.md)',
};

/** The sub-commands of the two-level commands (`offsets <p> <g>` alone is the view). */
export const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  streams: ['list', 'create', 'delete'],
  groups: ['list', 'get', 'delete'],
  migrations: ['list', 'get', 'rollback'],
  offsets: ['reset'],
  completion: ['bash', 'zsh', 'fish'],
};

/** Every command name, `help` included. */
export const COMMAND_NAMES: readonly string[] = [...Object.keys(COMMAND_USAGE), 'help'];

/** The full help text. */
export function helpText(): string {
  return `Usage: ${PROGRAM} <command> [arguments] [options]

Operate a redis-stream-coordinator over its HTTP API (/coord/v1).

Commands:
${Object.values(COMMAND_USAGE)
  .map((u) => `  ${u}`)
  .join('\n')}

Global options:
  --url URL            coordinator base URL (env RSC_URL; default http://127.0.0.1:8080)
  --user U --password P  Basic credentials (env RSC_USER, RSC_PASSWORD)
  --token T            bearer token (env RSC_TOKEN; default: the token stored by login)
  -o, --output FORMAT  table (default), wide (more columns), or json or yaml: the raw API answer
  --json               the same as -o json; JSON output prints failures as JSON on stderr
  --timeout MS         per-request timeout (default 10000)
  -h, --help           this help
  -V, --version        print the version and exit

Mutations (streams create/delete, groups delete, scale, repair, migrations rollback, offsets
reset) also take --requested-by WHO, the audit name recorded with the change (default
cli:<login name>).

Colour: status words are coloured on a terminal only; NO_COLOR=1 turns it off, FORCE_COLOR=1
turns it on when piped (FORCE_COLOR=0 off). JSON and YAML are never coloured.

Token file: ~/.config/redis-stream-coordinator/tokens.json (written by login, mode 0600):
one token per coordinator URL, sent only to the URL that issued it.

Exit codes:
  0  ok
  1  usage error (unknown command or option, missing or invalid argument)
  2  the API refused the request (4xx): errorCode and message on stderr
  3  the API failed (5xx) or could not be reached
  4  authentication failed (401) or the role does not allow the request (403)
`;
}

/** Help for one command (falls back to the full text for unknown names). */
export function commandHelp(command: string): string {
  const usage = Object.hasOwn(COMMAND_USAGE, command) ? COMMAND_USAGE[command] : undefined;
  if (!usage) return helpText();
  return `Usage: ${PROGRAM} ${usage}\n\nRun '${PROGRAM} --help' for global options and exit codes.\n`;
}

/** The package name whose `package.json` holds the version. */
const PACKAGE_NAME = 'redis-stream-coordinator-edge';

/**
 * This package's version: the nearest `package.json` named like the package, walking up from
 * this file (`cli/` in a checkout, `dist/cli/` in an install, where the build put a copy).
 */
export function packageVersion(from: URL = new URL('.', import.meta.url)): string {
  for (let dir = from; ; dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
      if (pkg?.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no (readable) package.json here: keep walking up
    }
    if (dir.pathname === '/') return '0.0.0';
  }
}
