import { type ParseArgsConfig, parseArgs } from "node:util";
import { CodedError } from "@svc/canonical";

/** The options a command line may hold, as node:util's parseArgs declares them. */
export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/** A command line read: its options' values and its other words. */
export type CommandLine<O extends OptionSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * Who is speaking: `name` starts the usage lines ("svc kt", or "svc-kt" for the alias) and
 * `tool` the error lines ("svc: error: …", "svc-kt: error: …").
 */
/** The options every svc command takes, before or after its words (`svc --help` lists them). */
export const GLOBAL_OPTIONS = {
  server: { type: "string" },
  home: { type: "string" },
  json: { type: "boolean" },
  "no-kt": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export const GLOBAL_OPTION_NAMES: readonly string[] = Object.keys(GLOBAL_OPTIONS);

export interface Program {
  name: string;
  tool: string;
}

/**
 * A mistake in the command line (code USAGE, exit 2); `command` says whose usage to print with
 * it.
 */
export class UsageError<C extends string = string> extends CodedError<"USAGE"> {
  override readonly name = "UsageError";
  constructor(
    message: string,
    readonly command: C | undefined,
  ) {
    super("USAGE", message);
  }
}

/**
 * The one parser of every svc command line: options anywhere (before or after the command),
 * `--` ending them, `-h` for `--help`. A line that does not parse (an unknown option, a missing
 * value) throws a UsageError for the first command `commandOf` finds among its words.
 */
export function readCommandLine<const O extends OptionSpec, C extends string>(
  argv: readonly string[],
  options: O,
  commandOf: (word: string) => C | undefined = () => undefined,
): CommandLine<O> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    const command = argv.map(commandOf).find((found) => found !== undefined);
    throw new UsageError((error as Error).message, command);
  }
}

/** Refuses an option that `command` does not take, though another command does. */
export function onlyOptions<C extends string>(
  values: object,
  allowed: readonly string[],
  command: C,
  prefix: string,
): void {
  for (const name of Object.keys(values)) {
    if (!allowed.includes(name)) {
      throw new UsageError(`--${name} is not an option of ${prefix} ${command}`, command);
    }
  }
}
