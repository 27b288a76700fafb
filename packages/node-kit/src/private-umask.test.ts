import { isMainThread } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { usePrivateUmask } from "./private-umask.js";

describe("usePrivateUmask", () => {
  it.runIf(isMainThread)("sets the umask to 077 on the main thread", () => {
    const before = process.umask(0o022);
    try {
      usePrivateUmask();
    } finally {
      // Setting it back answers what it was.
      expect(process.umask(before)).toBe(0o077);
    }
  });
});
