import { defaultHome } from "@svc/client/node";
import { describe, expect, it } from "vitest";
import { commandUsage, DEFAULT_SERVER, parseSvcArgs, USAGE, UsageError } from "./args.js";

const env = { SVC_HOME: "/tmp/h" };

describe("parseSvcArgs", () => {
  it("takes the options before or after the command", () => {
    const expected = {
      command: "send",
      to: "bob:1",
      text: "hi there",
      server: "http://s.example:9",
      home: "/x",
      json: true,
      kt: "require",
    };
    for (const argv of [
      ["--server", "http://s.example:9", "--home", "/x", "--json", "send", "bob:1", "hi there"],
      ["send", "bob:1", "hi there", "--json", "--server=http://s.example:9", "--home", "/x"],
      ["--json", "send", "--home", "/x", "bob:1", "--server", "http://s.example:9/", "hi there"],
    ]) {
      expect(parseSvcArgs(argv, env)).toEqual(expected);
    }
  });

  it("defaults --server to $SVC_SERVER, else 127.0.0.1:8080, and --home to $SVC_HOME", () => {
    expect(parseSvcArgs(["whoami"], env)).toEqual({
      command: "whoami",
      server: DEFAULT_SERVER,
      home: "/tmp/h",
      json: false,
      kt: "require",
    });
    expect(parseSvcArgs(["whoami"], { ...env, SVC_SERVER: "https://svc.example" })).toMatchObject({
      server: "https://svc.example",
    });
    expect(
      parseSvcArgs(["whoami", "--server", "http://b"], { ...env, SVC_SERVER: "http://a" }),
    ).toMatchObject({ server: "http://b" });
  });

  it("--no-kt, before or after the command, accepts a server without a log (kt auto)", () => {
    for (const argv of [
      ["--no-kt", "whoami"],
      ["send", "bob", "hi", "--no-kt"],
    ]) {
      expect(parseSvcArgs(argv, env)).toMatchObject({ kt: "auto" });
    }
  });

  it("without $SVC_HOME, the home is the per-user data directory", () => {
    expect(defaultHome({}, "linux", "/home/al")).toBe("/home/al/.local/share/svc");
    expect(defaultHome({ XDG_DATA_HOME: "/data" }, "linux", "/home/al")).toBe("/data/svc");
    expect(defaultHome({ XDG_DATA_HOME: "rel" }, "darwin", "/Users/al")).toBe(
      "/Users/al/.local/share/svc",
    );
    expect(
      defaultHome({ APPDATA: "C:\\Users\\al\\AppData\\Roaming" }, "win32", "C:\\Users\\al"),
    ).toBe("C:\\Users\\al\\AppData\\Roaming\\svc");
    expect(defaultHome({ SVC_HOME: "/h", XDG_DATA_HOME: "/data" }, "linux", "/home/al")).toBe("/h");
  });

  it("parses each command", () => {
    expect(parseSvcArgs(["init", "--address", "alice:1"], env)).toMatchObject({
      command: "init",
      address: "alice:1",
    });
    expect(parseSvcArgs(["listen"], env)).toMatchObject({
      command: "listen",
      count: undefined,
      timeoutMs: undefined,
      wait: false,
      drain: false,
    });
    expect(parseSvcArgs(["listen", "--wait"], env)).toMatchObject({ wait: true, drain: false });
    expect(parseSvcArgs(["listen", "--drain"], env)).toMatchObject({ wait: false, drain: true });
    expect(parseSvcArgs(["chat", "bob:1"], env)).toMatchObject({
      command: "chat",
      address: "bob:1",
    });
    // The message from stdin: "-", or no text (read when stdin is not a terminal).
    expect(parseSvcArgs(["send", "bob", "-"], env)).toMatchObject({ to: "bob", text: "-" });
    expect(parseSvcArgs(["send", "bob"], env)).toMatchObject({ to: "bob", text: undefined });
    expect(parseSvcArgs(["listen", "--count", "3", "--timeout", "1.5"], env)).toMatchObject({
      command: "listen",
      count: 3,
      timeoutMs: 1500,
    });
    expect(parseSvcArgs(["keys", "status"], env)).toMatchObject({ command: "keys status" });
    expect(parseSvcArgs(["kt", "verify", "bob"], env)).toMatchObject({
      command: "kt verify",
      address: "bob",
    });
    for (const command of ["safety-number", "trust", "session"]) {
      expect(parseSvcArgs([command, "Bob:1", "--json"], env)).toMatchObject({
        command,
        address: "Bob:1",
        json: true,
      });
      expect(() => parseSvcArgs([command], env)).toThrow(`svc ${command} takes <address>`);
    }
    expect(commandUsage("trust")).toMatch(/6 the peer's identity keys changed/);
    expect(parseSvcArgs(["send", "bob", "--", "-1 degrees"], env)).toMatchObject({
      text: "-1 degrees",
    });
  });

  it("--help gives the tool's usage or the command's", () => {
    expect(parseSvcArgs(["--help"], env)).toEqual({ command: "help", text: USAGE });
    expect(parseSvcArgs(["-h", "kt", "verify"], env)).toEqual({
      command: "help",
      text: commandUsage("kt verify"),
    });
    expect(parseSvcArgs(["send", "--help"], env)).toEqual({
      command: "help",
      text: commandUsage("send"),
    });
    expect(USAGE).toMatch(/exit status: 0 ok, 1 failure.*\n.*2 usage error, 3 key-transparency/);
    expect(commandUsage("listen")).toMatch(/4 listen timed out/);
  });

  it("throws a UsageError naming the mistake and the command whose usage applies", () => {
    const cases: Array<[string[], RegExp, string | undefined]> = [
      [[], /no command given/, undefined],
      [["register"], /unknown command: register/, undefined],
      [["keys"], /unknown command: svc keys$/, "keys status"],
      [["kt", "audit", "bob"], /unknown command: svc kt audit/, "kt verify"],
      [["init"], /--address is required/, "init"],
      [["init", "--address", "bad,addr"], /--address "bad,addr" is not a valid address/, "init"],
      [["init", "--address"], /--address/, "init"],
      [["send"], /svc send takes <address> <text>/, "send"],
      [["send", "bob", "hi", "there"], /svc send takes <address> <text>/, "send"],
      [["send", "bob", ""], /the message is empty/, "send"],
      [["chat"], /svc chat takes <address>/, "chat"],
      [["chat", "b o b"], /<address> "b o b" is not a valid address/, "chat"],
      [["chat", "bob", "--count", "1"], /--count is not an option of svc chat/, "chat"],
      [["listen", "--drain", "--wait"], /--drain takes no --count, --timeout or --wait/, "listen"],
      [["listen", "--drain", "--timeout", "3"], /--drain takes no/, "listen"],
      [["send", "b o b", "hi"], /<address> "b o b" is not a valid address/, "send"],
      [["send", "bob", "-hi"], /Unknown option '-i'/, "send"],
      [["whoami", "extra"], /svc whoami takes no arguments/, "whoami"],
      [["whoami", "--count", "2"], /--count is not an option of svc whoami/, "whoami"],
      [["listen", "--count", "0"], /--count must be a whole number/, "listen"],
      [["listen", "--count", "2.5"], /--count must be a whole number/, "listen"],
      [["listen", "--timeout", "0"], /--timeout must be a number of seconds/, "listen"],
      [["listen", "--timeout", "soon"], /--timeout must be a number of seconds/, "listen"],
      [["listen", "--verbose"], /Unknown option '--verbose'/, "listen"],
      [["whoami", "--server", "ftp://x"], /--server must be an http\(s\) URL/, "whoami"],
      [["whoami", "--home", ""], /--home must not be empty/, "whoami"],
    ];
    for (const [argv, message, command] of cases) {
      let thrown: unknown;
      try {
        parseSvcArgs(argv, env);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, argv.join(" ")).toBeInstanceOf(UsageError);
      expect((thrown as UsageError).message, argv.join(" ")).toMatch(message);
      expect((thrown as UsageError).command, argv.join(" ")).toBe(command);
    }
    expect(() => parseSvcArgs(["whoami"], { ...env, SVC_SERVER: "localhost:8080" })).toThrow(
      /\$SVC_SERVER must be an http\(s\) URL, not "localhost:8080"/,
    );
  });

  it("reads the device commands and init --link", () => {
    expect(parseSvcArgs(["devices", "link", "--timeout", "30", "--json"], env)).toMatchObject({
      command: "devices link",
      timeoutMs: 30_000,
      json: true,
    });
    expect(parseSvcArgs(["devices", "list"], env)).toMatchObject({
      command: "devices list",
      account: undefined,
    });
    expect(parseSvcArgs(["devices", "list", "alice@example.org"], env)).toMatchObject({
      command: "devices list",
      account: "alice@example.org",
    });
    expect(parseSvcArgs(["devices", "remove", "alice:2"], env)).toMatchObject({
      command: "devices remove",
      address: "alice:2",
    });
    expect(
      parseSvcArgs(["init", "--address", "alice:2", "--link", "1-AAAA-BBBB-CCCC-DDDD"], env),
    ).toMatchObject({
      command: "init",
      address: "alice:2",
      link: "1-AAAA-BBBB-CCCC-DDDD",
      timeoutMs: undefined,
    });
    expect(parseSvcArgs(["devices", "link", "--help"], env)).toMatchObject({ command: "help" });
  });

  it("refuses device command lines that do not hold together", () => {
    for (const [argv, message] of [
      [["devices"], "unknown command: svc devices"],
      [["devices", "add"], "unknown command: svc devices add"],
      [["devices", "remove"], "svc devices remove takes <address>"],
      [["devices", "list", "a", "b"], "svc devices list takes <account>"],
      [["devices", "list", "--timeout", "3"], "--timeout is not an option of svc devices list"],
      [["devices", "link", "--timeout", "0"], "--timeout must be a number of seconds above 0"],
      [
        ["init", "--address", "alice", "--link", "1-A"],
        "--link needs --address <account>:<device>",
      ],
      [["init", "--address", "alice:1", "--timeout", "3"], "--timeout goes with --link"],
    ] as const) {
      expect(() => parseSvcArgs(argv, env)).toThrow(UsageError);
      expect(() => parseSvcArgs(argv, env)).toThrow(message);
    }
    expect(commandUsage("devices link")).toContain("LINK_REFUSED");
    expect(USAGE).toContain("devices remove <address>");
  });
});
