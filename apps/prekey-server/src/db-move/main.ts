import { runDbCli } from "./cli.js";

// The `svc-db` binary (bin/svc-db.js).
process.exitCode = await runDbCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
