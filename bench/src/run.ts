import { suites } from "./suites.js";

/**
 * Runs every benchmark suite, or those named on the command line (`pnpm bench prekeys`).
 * Suites that need PostgreSQL read BENCH_DATABASE_URL (or TEST_DATABASE_URL) and skip it if unset.
 */
if (process.argv.includes("--help")) {
  console.log(`usage: pnpm bench [suite...]; suites: ${Object.keys(suites).join(", ")}`);
  process.exit(0);
}
const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const unknown = wanted.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(
    `unknown suite(s): ${unknown.join(", ")}; known: ${Object.keys(suites).join(", ")}`,
  );
  process.exit(2);
}
for (const [name, run] of Object.entries(suites)) {
  if (wanted.length === 0 || wanted.includes(name)) await run();
}
process.exit(0);
