import { main } from "./main.js";
import { runCli } from "./run.js";

// The `svc` binary (bin/svc.js).
await main("svc", (io) => runCli(process.argv.slice(2), io));
