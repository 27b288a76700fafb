/**
 * `pnpm release` runs this before `pnpm publish -r`: it refuses to publish while a publishable
 * package's manifest is incomplete, its repository URL included.
 */
import { manifestProblems, publishablePackages, releaseProblems } from "./publishable.js";

const packages = publishablePackages();
const names = new Set(packages.map((pkg) => pkg.manifest.name));
const problems = packages.flatMap((pkg) => [
  ...manifestProblems(pkg, names),
  ...releaseProblems(pkg),
]);
if (problems.length > 0) {
  process.stderr.write(`Not publishing:\n${problems.map((problem) => `- ${problem}\n`).join("")}`);
  process.exit(1);
}
process.stdout.write(`Publishing ${[...names].join(", ")}\n`);
