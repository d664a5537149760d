/**
 * The CLI's dispatcher: parses the command line, answers `--help` and `--version`, runs the
 * command and turns every failure into its message on stderr and its exit code.
 */

import {
  allowOnly,
  type CommandLine,
  intOption,
  outputFormat,
  parseCommandLine,
  resolveTarget,
  wantsJson,
} from './cli-args.js';
import { cliClient } from './cli-client.js';
import { API_COMMANDS } from './cli-commands.js';
import { completionScript } from './cli-completion.js';
import type { CliContext } from './cli-context.js';
import { CliFailure, EXIT, usageError } from './cli-errors.js';
import { COMMAND_NAMES, commandHelp, helpText, PROGRAM, packageVersion } from './cli-help.js';
import { colorEnabled, paint } from './cli-look.js';
import { didYouMean } from './cli-suggest.js';
import { watch } from './cli-watch.js';

/** What `runCli` ended with: an exit code, or `serving` when `serve` took over the process. */
export type CliOutcome = number | 'serving';

/** `serve`: the coordinator in this process, configured from the environment like `npm start`. */
async function serve(
  args: string[],
  cl: CommandLine,
  env: Record<string, string | undefined>,
): Promise<CliOutcome> {
  allowOnly(cl.values, ['port', 'host'], 'serve');
  if (args.length > 0) throw usageError(`unexpected argument '${args[0]}': serve [--port N] [--host H]`);
  const port = intOption(cl.values, 'port', 0, 65_535);
  if (port !== undefined) env.PORT = String(port);
  if (cl.values.host !== undefined) env.HOST = cl.values.host;
  // start.ts reads process.env when imported and owns the process from then on (signals, exit).
  await import('../node/start.js');
  return 'serving';
}

/** Runs one command line. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<CliOutcome> {
  try {
    const cl = parseCommandLine(argv);
    const [command, ...args] = cl.positionals;
    if (command === 'help') {
      ctx.out(args[0] ? commandHelp(args[0]) : helpText());
      return EXIT.OK;
    }
    if (cl.values.version) {
      ctx.out(packageVersion());
      return EXIT.OK;
    }
    if (cl.values.help) {
      ctx.out(command ? commandHelp(command) : helpText());
      return EXIT.OK;
    }
    if (command === undefined) throw usageError('no command given');
    outputFormat(cl.values);
    if (command === 'serve') return await serve(args, cl, process.env);
    if (command === 'completion') {
      allowOnly(cl.values, [], 'completion');
      ctx.out(completionScript(args).trimEnd());
      return EXIT.OK;
    }
    // Own keys only: `toString` and friends are not commands.
    const run =
      command === 'watch' ? watch : Object.hasOwn(API_COMMANDS, command) ? API_COMMANDS[command] : undefined;
    if (!run) throw usageError(`unknown command '${command}'${didYouMean(command, COMMAND_NAMES)}`);
    const target = await resolveTarget(cl.values, ctx.env, ctx.tokenFile);
    return await run(args, cl, ctx, cliClient(target));
  } catch (err) {
    // A local failure (e.g. the token file could not be written) is not the API's fault.
    const failure =
      err instanceof CliFailure
        ? err
        : new CliFailure(EXIT.USAGE, err instanceof Error ? err.message : String(err));
    // JSON scripts read the failure as JSON too (also when the command line itself was bad).
    if (wantsJson(argv)) ctx.err(JSON.stringify(failure));
    else {
      const error = paint(colorEnabled(ctx.env, ctx.errIsTTY ?? false)).colour('error:', 'red');
      ctx.err(`${error} ${failure.message}`);
      if (failure.exitCode === EXIT.USAGE && err instanceof CliFailure)
        ctx.err(`Run '${PROGRAM} --help' for usage.`);
    }
    return failure.exitCode;
  }
}
