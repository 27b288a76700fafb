import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnNode } from "@svc/processes";
import { printTable } from "../harness/table.js";
import { suites } from "../suites.js";
import { builtCheckout } from "./base-checkout.js";
import { judge, TOLERANCE, verdict } from "./judge.js";
import { type PrintedRow, parsePrintedTables } from "./parse-tables.js";

const USAGE = `usage: pnpm bench:compare <git-ref> [suite...] [--rounds N]
       pnpm bench:compare --from <dir> [suite...]
Runs each suite on <git-ref> and on this checkout, alternating, N rounds (default 2), and prints
each row's change: the median of head / base, and the same with each side divided by its own
baseline row of that run, beside how far each side moved between its own rounds (spread).
--from judges the outputs an earlier comparison kept in <dir> again, running nothing.
Suites: ${Object.keys(suites).join(", ")}.`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.length === 0) {
  console.log(USAGE);
  process.exit(args.length === 0 ? 2 : 0);
}
const optionValue = (option: string) => {
  const at = args.indexOf(option);
  return at >= 0 ? args[at + 1] : undefined;
};
const from = optionValue("--from");
const rounds = Number(optionValue("--rounds") ?? 2);
const positional = args.filter((arg, i) => !arg.startsWith("-") && !args[i - 1]?.startsWith("-"));
const [ref, ...named] = from === undefined ? positional : ["", ...positional];
const unknown = named.filter((name) => !(name in suites));
if (ref === undefined || !Number.isInteger(rounds) || rounds < 1 || unknown.length > 0) {
  console.error(unknown.length > 0 ? `unknown suite(s): ${unknown.join(", ")}` : USAGE);
  process.exit(2);
}
const chosen = named.length > 0 ? named : Object.keys(suites);

if (from !== undefined) {
  for (const suite of chosen) {
    const results = keptRounds(from, suite);
    if (results.length > 0) printJudged(suite, `the runs kept in ${from}`, results);
  }
  process.exit(0);
}

const head = fileURLToPath(new URL("../../..", import.meta.url));
const base = builtCheckout(head, ref, (line) => console.error(line));
const outputs = mkdtempSync(join(tmpdir(), "svc-bench-compare-"));
console.error(`each run's output is kept in ${outputs}`);

for (const suite of chosen) {
  const results: Array<{ base: PrintedRow[]; head: PrintedRow[] }> = [];
  for (let round = 1; round <= rounds; round++) {
    // ABBA: the side that runs second in one round runs first in the next, so a machine that
    // warms up or slows down over the run weighs on both sides alike.
    const order = round % 2 === 1 ? (["base", "head"] as const) : (["head", "base"] as const);
    const text = { base: "", head: "" };
    for (const side of order) {
      console.error(`${suite}: round ${round}/${rounds}, ${side}`);
      text[side] = await runSuite(side === "base" ? base : head, suite);
      writeFileSync(join(outputs, `${suite}-${round}-${side}.txt`), text[side]);
    }
    results.push({ base: parsePrintedTables(text.base), head: parsePrintedTables(text.head) });
  }
  printJudged(suite, `this checkout against ${ref}`, results);
}
process.exit(0);

function printJudged(
  suite: string,
  what: string,
  results: Array<{ base: PrintedRow[]; head: PrintedRow[] }>,
): void {
  printTable(
    `${suite}: ${what}, median of ${results.length} round(s), ±${TOLERANCE * 100}% counts as the same`,
    judge(results).map((row) => ({
      name: `${shortTitle(row.table)} | ${row.name}`,
      opsPerSec: 0,
      columns: {
        base: format(row.base),
        head: format(row.head),
        "head/base": row.change.toFixed(3),
        normalized: row.normalized?.toFixed(3) ?? "",
        spread: `${(row.spread * 100).toFixed(0)}%`,
        verdict: verdict(row),
      },
    })),
    { rate: false, latency: false },
  );
}

/** The rounds of `suite` an earlier comparison kept in `dir` (`<suite>-<round>-<side>.txt`). */
function keptRounds(dir: string, suite: string): Array<{ base: PrintedRow[]; head: PrintedRow[] }> {
  const results: Array<{ base: PrintedRow[]; head: PrintedRow[] }> = [];
  for (let round = 1; ; round++) {
    const file = (side: string) => join(dir, `${suite}-${round}-${side}.txt`);
    if (!existsSync(file("base")) || !existsSync(file("head"))) return results;
    results.push({
      base: parsePrintedTables(readFileSync(file("base"), "utf8")),
      head: parsePrintedTables(readFileSync(file("head"), "utf8")),
    });
  }
}

async function runSuite(root: string, suite: string): Promise<string> {
  const child = spawnNode(join(root, "bench/dist/run.js"), [suite], { inheritEnv: true });
  const code = await child.exited;
  if (code !== 0) {
    console.error(child.out.stderr);
    throw new Error(`${suite} in ${root} exited with ${code}`);
  }
  return child.out.stdout;
}

/** A table's title without its suite prefix and its parenthesized remarks. */
function shortTitle(title: string): string {
  return title
    .replace(/^[^:]*: /, "")
    .replace(/ *\([^)]*\)/g, "")
    .trim();
}

function format(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toPrecision(3);
}
