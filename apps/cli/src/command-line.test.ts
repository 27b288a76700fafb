import { CodedError } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { GLOBAL_OPTIONS, readCommandLine, UsageError } from "./command-line.js";
import { LeftForNextListen } from "./listen.js";

describe("the CLI's error classes", () => {
  it("a command line that does not parse is a UsageError, code USAGE, for the command it names", () => {
    let thrown: unknown;
    try {
      readCommandLine(["send", "--nope"], GLOBAL_OPTIONS, (word) =>
        word === "send" ? "send" : undefined,
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect(thrown).toBeInstanceOf(CodedError);
    expect(thrown).toMatchObject({ name: "UsageError", code: "USAGE", command: "send" });
    expect((thrown as Error).message).toMatch("--nope");
  });

  it("a message left for the next listen is LeftForNextListen, code LEFT_QUEUED", () => {
    const left = new LeftForNextListen("m1 left queued");
    expect(left).toBeInstanceOf(CodedError);
    expect(left).toMatchObject({
      name: "LeftForNextListen",
      code: "LEFT_QUEUED",
      message: "m1 left queued",
    });
  });
});
