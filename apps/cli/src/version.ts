import { createRequire } from "node:module";

/** This package's version, as `svc --version` prints it (dist/ and src/ sit beside package.json). */
export const VERSION: string = (
  createRequire(import.meta.url)("../package.json") as { version: string }
).version;
