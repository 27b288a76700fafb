import type { Program } from "./command-line.js";
import { runDbCli } from "./db/run.js";
import { type KtIo, runKtCli } from "./kt/run.js";
import { runTransferCli, type TransferCliIo } from "./transfer/run.js";

/** The commands of svc that take their own subcommands and options. */
export type GroupName = "transfer" | "kt" | "db";

export type GroupIo = KtIo &
  TransferCliIo & {
    env?: Record<string, string | undefined>;
  };

/** `svc <group> <argv>` (or the group's alias, by `program`); resolves to the exit status. */
export function runGroup(
  group: GroupName,
  program: Program,
  argv: readonly string[],
  io: GroupIo,
): Promise<number> {
  switch (group) {
    case "transfer":
      return runTransferCli(program, argv, io);
    case "kt":
      return runKtCli(program, argv, io);
    case "db":
      return runDbCli(program, argv, { ...io, env: io.env ?? process.env });
  }
}

/** The options of svc and its groups that take a value: the word after them is not a command. */
const VALUE_OPTIONS = new Set(
  [
    "server home address count timeout",
    "dir port to peer lanes chunk-bytes",
    "url watch interval log-key vrf-key log name host",
    "from",
    "endpoint p256dh auth",
  ].flatMap((names) => names.split(" ").map((name) => `--${name}`)),
);

/**
 * The group `svc <argv>` names and the line without that word, or undefined for svc's own
 * verbs. `kt verify` is one of those (it uses the home and the server); `kt` alone, `kt monitor`
 * and `kt witness` are the group's.
 */
export function findGroup(
  argv: readonly string[],
): { group: GroupName; rest: string[] } | undefined {
  const words = commandWords(argv);
  const [first, second] = words;
  if (first === undefined) return undefined;
  const word = argv[first] as string;
  if (word !== "transfer" && word !== "kt" && word !== "db") return undefined;
  if (word === "kt" && second !== undefined && argv[second] === "verify") return undefined;
  return { group: word, rest: argv.filter((_, index) => index !== first) };
}

/** The indexes of the words that are not options or their values. */
function commandWords(argv: readonly string[]): number[] {
  const words: number[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] as string;
    if (word === "--") {
      for (let rest = index + 1; rest < argv.length; rest++) words.push(rest);
      break;
    }
    if (VALUE_OPTIONS.has(word)) index++;
    else if (!word.startsWith("-")) words.push(index);
  }
  return words;
}
