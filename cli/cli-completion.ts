/**
 * `completion bash|zsh|fish`: a shell completion script, as `kubectl completion` and `gh
 * completion` print (docs/cli.md#shell-completion). Static: the commands, sub-commands, options
 * and the fixed option values come from the CLI's own tables, so a new one is completed as soon
 * as it exists; nothing asks the coordinator.
 */
import { FORMATS, OPTIONS, type OptionValues } from './cli-args.js';
import { usageError } from './cli-errors.js';
import { COMMAND_NAMES, PROGRAM, SUBCOMMANDS } from './cli-help.js';
import { didYouMean } from './cli-suggest.js';

/** One line on each option, for the shells that show descriptions (zsh, fish). */
const OPTION_HELP: Readonly<Record<keyof OptionValues, string>> = {
  url: 'coordinator base URL',
  user: 'user name (Basic)',
  password: 'password (Basic)',
  token: 'bearer token',
  json: 'the same as -o json',
  output: 'output format',
  help: 'show help',
  version: 'print the version',
  timeout: 'per-request timeout, ms',
  shards: 'shard count, or shard indexes 0,2',
  group: 'consumer group',
  reason: 'why (recorded with the change)',
  'requested-by': 'audit name of the change',
  force: 'delete even what is not drained',
  mode: 'repair mode',
  print: 'print the token instead of storing it',
  all: 'every stored token',
  iterations: 'frames to draw',
  interval: 'ms between frames',
  port: 'port to listen on',
  host: 'address to listen on',
  to: 'where the group should read from',
  execute: 'do it (not a dry run)',
};

/** The fixed values an option takes, where it has some. */
const OPTION_VALUES: Partial<Record<keyof OptionValues, readonly string[]>> = {
  output: FORMATS,
  mode: ['rebuild', 'reset'],
  to: ['earliest', 'latest'],
};

/** The shells `completion` writes for. */
const SHELLS = ['bash', 'zsh', 'fish'] as const;

type OptionName = keyof typeof OPTIONS;
const OPTION_NAMES = Object.keys(OPTIONS) as OptionName[];
const takesValue = (o: OptionName) => OPTIONS[o].type === 'string';
const shortOf = (o: OptionName): string | undefined => (OPTIONS[o] as { short?: string }).short;
/** The bash function's name: `_redis_stream_coordinator`. */
const FUNCTION = `_${PROGRAM.replace(/-/g, '_')}`;

/** Words a bash `case` alternative matches: `-o|--output`. */
function bashFlags(o: OptionName): string {
  const short = shortOf(o);
  return short ? `-${short}|--${o}` : `--${o}`;
}

function bashScript(): string {
  const flags = OPTION_NAMES.flatMap((o) => [`--${o}`, ...(shortOf(o) ? [`-${shortOf(o)}`] : [])]);
  const withValue = OPTION_NAMES.filter(takesValue);
  const valueCases = Object.entries(OPTION_VALUES).map(
    ([o, values]) =>
      `    ${bashFlags(o as OptionName)}) COMPREPLY=($(compgen -W "${values!.join(' ')}" -- "$cur")); return ;;`,
  );
  const subCases = Object.entries(SUBCOMMANDS).map(([c, subs]) => `      ${c}) words="${subs.join(' ')}" ;;`);
  return `# bash completion for ${PROGRAM}: source it, e.g. from ~/.bashrc:
#   source <(${PROGRAM} completion bash)
${FUNCTION}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local i w command="" position=0 words=""
  case "$prev" in
${valueCases.join('\n')}
    ${withValue.map(bashFlags).join('|')}) return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "${flags.join(' ')}" -- "$cur"))
    return
  fi
  # The command and how many arguments follow it, skipping options and their values.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${withValue.map(bashFlags).join('|')}) ((i++)) ;;
      -*) ;;
      *) if [[ -z "$command" ]]; then command="$w"; else ((position++)); fi ;;
    esac
  done
  if [[ -z "$command" ]]; then
    words="${COMMAND_NAMES.join(' ')}"
  elif [[ $position -eq 0 ]]; then
    case "$command" in
${subCases.join('\n')}
      help) words="${COMMAND_NAMES.join(' ')}" ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F ${FUNCTION} ${PROGRAM}
`;
}

/** Single quotes for zsh and fish: `'` inside ends, escapes and reopens the quote. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function zshScript(): string {
  const specs = OPTION_NAMES.map((o) => {
    const values = OPTION_VALUES[o];
    const arg = takesValue(o) ? `:${o}:${values ? `(${values.join(' ')})` : ''}` : '';
    const short = shortOf(o);
    const names = short ? `'(-${short} --${o})'{-${short},--${o}}` : `--${o}`;
    return `    ${names}${quote(`[${OPTION_HELP[o]}]${arg}`)}`;
  });
  const subCases = Object.entries(SUBCOMMANDS).map(
    ([c, subs]) => `        ${c}) subs=(${subs.join(' ')}) ;;`,
  );
  // Named as the file on $fpath, so that autoloading it runs it.
  const fn = `_${PROGRAM}`;
  return `#compdef ${PROGRAM}
# zsh completion for ${PROGRAM}: save it on $fpath as ${fn}, or source it:
#   source <(${PROGRAM} completion zsh)
${fn}() {
  local state
  local -a options subs
  options=(
${specs.join('\n')}
  )
  _arguments -s $options \
    '1:command:(${COMMAND_NAMES.join(' ')})' \
    '*::argument:->argument'
  [[ $state == argument ]] || return
  # $words now starts at the command: its first argument may be a sub-command.
  case $words[1] in
${subCases.join('\n')}
        help) subs=(${COMMAND_NAMES.join(' ')}) ;;
  esac
  if (( $#subs )); then
    _arguments -s $options "1:sub-command:(\${subs[*]})" '*:argument: '
  else
    _arguments -s $options '*:argument: '
  fi
}
if [[ "\${funcstack[1]}" == "${fn}" ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${PROGRAM}
fi
`;
}

function fishScript(): string {
  const c = `complete -c ${PROGRAM}`;
  const lines = [
    `# fish completion for ${PROGRAM}: save it as`,
    `#   ~/.config/fish/completions/${PROGRAM}.fish`,
    `${c} -f`,
    `${c} -n __fish_use_subcommand -a ${quote(COMMAND_NAMES.join(' '))}`,
    // A sub-command is offered once, right after its command.
    ...Object.entries(SUBCOMMANDS).map(
      ([command, subs]) =>
        `${c} -n ${quote(`__fish_seen_subcommand_from ${command}; and not __fish_seen_subcommand_from ${subs.join(' ')}`)} -a ${quote(subs.join(' '))}`,
    ),
    `${c} -n ${quote('__fish_seen_subcommand_from help')} -a ${quote(COMMAND_NAMES.join(' '))}`,
    ...OPTION_NAMES.map((o) => {
      const short = shortOf(o) ? ` -s ${shortOf(o)}` : '';
      const values = OPTION_VALUES[o];
      const arg = values ? ` -x -a ${quote(values.join(' '))}` : takesValue(o) ? ' -r' : '';
      return `${c}${short} -l ${o}${arg} -d ${quote(OPTION_HELP[o])}`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}

/** `completion <shell>`: the script for `shell`, or a usage error naming the shells. */
export function completionScript(args: readonly string[]): string {
  const [shell, ...rest] = args;
  if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}': completion bash|zsh|fish`);
  if (shell === 'bash') return bashScript();
  if (shell === 'zsh') return zshScript();
  if (shell === 'fish') return fishScript();
  const got = shell === undefined ? '' : ` (got '${shell}')${didYouMean(shell, SHELLS)}`;
  throw usageError(`completion needs one of: ${SHELLS.join(', ')}${got}`);
}
