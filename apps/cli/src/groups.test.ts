import { describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import { findGroup } from "./groups.js";
import { runCli } from "./run.js";

describe("svc's command groups", () => {
  it("are found wherever the options put their word, and taken out of the line", () => {
    expect(findGroup(["transfer", "send", "f", "--to", "b:1"])).toEqual({
      group: "transfer",
      rest: ["send", "f", "--to", "b:1"],
    });
    expect(findGroup(["--server", "http://x", "--json", "db", "move"])).toEqual({
      group: "db",
      rest: ["--server", "http://x", "--json", "move"],
    });
    expect(findGroup(["--home", "kt", "kt", "monitor"])).toEqual({
      group: "kt",
      rest: ["--home", "kt", "monitor"],
    });
    expect(findGroup(["kt", "--help"])).toEqual({ group: "kt", rest: ["--help"] });
  });

  it("leave svc's own verbs to svc, kt verify among them", () => {
    expect(findGroup(["kt", "verify", "bob:1"])).toBeUndefined();
    expect(findGroup(["--json", "kt", "--", "verify"])).toBeUndefined();
    expect(findGroup(["send", "bob:1", "transfer"])).toBeUndefined();
    expect(findGroup(["--help"])).toBeUndefined();
  });

  it.each([
    [["transfer", "--help"], /^usage: svc transfer \[options\] <command>/],
    [["transfer", "send", "--help"], /^usage: svc transfer send <file>/],
    [["kt", "--help"], /^usage: svc kt monitor[\s\S]*\n {7}svc kt verify <address>/],
    [["db", "--help"], /^usage: svc db move /],
  ])("answer %j with their usage under svc's name", async (argv, usage) => {
    const stdout: string[] = [];
    const code = await runCli(argv, { stdout: (line) => stdout.push(line), stderr: () => {} });
    expect(code).toBe(EXIT.ok);
    expect(stdout.join("\n")).toMatch(usage);
  });

  it("print usage errors under svc's name, exit 2", async () => {
    const stderr: string[] = [];
    const code = await runCli(["transfer", "send", "f"], {
      stdout: () => {},
      stderr: (line) => stderr.push(line),
      env: {},
    });
    expect(code).toBe(EXIT.usage);
    expect(stderr.join("\n")).toMatch(/^svc: --to is required\n\nusage: svc transfer send <file>/);
  });
});
