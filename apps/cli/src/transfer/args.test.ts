import { describe, expect, it } from "vitest";
import { UsageError } from "../command-line.js";
import { DEFAULT_CHUNK_BYTES, DEFAULT_LANES, parseTransferArgs } from "./args.js";

const env = { SVC_HOME: "/h", SVC_SERVER: "http://s:1" };

describe("svc transfer arguments", () => {
  it("reads receive and send with svc's global options and their environment defaults", () => {
    expect(parseTransferArgs(["receive", "--dir", "in", "--port", "9000"], env)).toEqual({
      command: "receive",
      dir: "in",
      port: 9000,
      server: "http://s:1",
      home: "/h",
      json: false,
      kt: "require",
    });
    expect(
      parseTransferArgs(
        ["--json", "send", "f.bin", "--to", "Bob:1", "--peer", "http://p:8090/", "--home", "/x"],
        env,
      ),
    ).toEqual({
      command: "send",
      file: "f.bin",
      to: "Bob:1",
      peer: "http://p:8090",
      lanes: DEFAULT_LANES,
      chunkBytes: DEFAULT_CHUNK_BYTES,
      server: "http://s:1",
      home: "/x",
      json: true,
      kt: "require",
    });
    expect(
      parseTransferArgs(["receive", "--dir", "in", "--no-kt"], env),
      "--no-kt accepts a server without a KT log",
    ).toMatchObject({ kt: "auto" });
    expect(
      parseTransferArgs(
        [
          "send",
          "f",
          "--to",
          "b:1",
          "--peer",
          "https://p",
          "--lanes",
          "2",
          "--chunk-bytes",
          "65536",
        ],
        env,
      ),
    ).toMatchObject({ lanes: 2, chunkBytes: 65536 });
  });

  it.each([
    [[], "no command given"],
    [["fetch"], "unknown command: fetch"],
    [["receive"], "--dir is required"],
    [["receive", "--dir", "d", "--port", "70000"], "--port must be a whole number from 0 to 65535"],
    [["receive", "--dir", "d", "--to", "x"], "--to is not an option of svc transfer receive"],
    [["send", "--to", "b:1", "--peer", "http://p"], "svc transfer send takes one <file>"],
    [["send", "f", "--peer", "http://p"], "--to is required"],
    [["send", "f", "--to=-x", "--peer", "http://p"], "is not a valid address"],
    [["send", "f", "--to", "b:1", "--peer", "ftp://p"], "--peer must be an http(s) URL"],
    [["send", "f", "--to", "b:1", "--peer", "http://p", "--lanes", "0"], "--lanes must be"],
    [["send", "f", "--to", "b:1", "--peer", "http://p", "--chunk-bytes", "1e6"], "--chunk-bytes"],
    [["send", "f", "--to", "b:1", "--peer", "http://p", "--server", "nope"], "--server must be"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => parseTransferArgs(argv, env)).toThrow(UsageError);
    expect(() => parseTransferArgs(argv, env)).toThrow(message);
  });

  it("answers --help for the tool and for each command", () => {
    expect(parseTransferArgs(["--help"], {})).toMatchObject({ command: "help" });
    const help = parseTransferArgs(["send", "--help"], {});
    expect(help.command === "help" && help.text).toMatch(/^usage: svc transfer send <file>/);
  });
});
