import { mkdtempSync, writeFileSync } from "node:fs";
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
Runs each suite on <git-ref> and on this checkout, alternating, N rounds (default 2), and prints
each row's change: the median of head / base, and the same with each side divided by its own
baseline row of that run. Suites: ${Object.keys(suites).join(", ")}.`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.length === 0) {
  console.log(USAGE);
  process.exit(args.length === 0 ? 2 : 0);
}
const roundsAt = args.indexOf("--rounds");
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 2;
const positional = args.filter((arg, i) => !arg.startsWith("-") && i !== roundsAt + 1);
const [ref, ...named] = positional;
const unknown = named.filter((name) => !(name in suites));
if (ref === undefined || !Number.isInteger(rounds) || rounds < 1 || unknown.length > 0) {
  console.error(unknown.length > 0 ? `unknown suite(s): ${unknown.join(", ")}` : USAGE);
  process.exit(2);
}

const head = fileURLToPath(new URL("../../..", import.meta.url));
const base = builtCheckout(head, ref, (line) => console.error(line));
const outputs = mkdtempSync(join(tmpdir(), "svc-bench-compare-"));
console.error(`each run's output is kept in ${outputs}`);

for (const suite of named.length > 0 ? named : Object.keys(suites)) {
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
  const judged = judge(results);
  printTable(
    `${suite}: this checkout against ${ref}, median of ${rounds} round(s), ±${TOLERANCE * 100}% counts as the same`,
    judged.map((row) => ({
      name: `${shortTitle(row.table)} | ${row.name}`,
      opsPerSec: 0,
      columns: {
        base: format(row.base),
        head: format(row.head),
        "head/base": row.change.toFixed(3),
        normalized: row.normalized?.toFixed(3) ?? "",
        verdict: verdict(row),
      },
    })),
    { rate: false, latency: false },
  );
}
process.exit(0);

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
