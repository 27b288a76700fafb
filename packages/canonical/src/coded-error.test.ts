import { describe, expect, it } from "vitest";
import { CodedError } from "./coded-error.js";

class ExampleError extends CodedError<"EXAMPLE_BAD" | "EXAMPLE_WORSE"> {
  override readonly name = "ExampleError";
}

describe("CodedError", () => {
  it("carries the code, the message, the subclass's name and the cause given", () => {
    const cause = new TypeError("underneath");
    const error = new ExampleError("EXAMPLE_WORSE", "it got worse", { cause });
    expect(error).toBeInstanceOf(ExampleError);
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      "ExampleError",
      "EXAMPLE_WORSE",
      "it got worse",
      cause,
    ]);
    expect(String(error)).toBe("ExampleError: it got worse");
  });

  it("has no cause member unless one is given", () => {
    const error = new ExampleError("EXAMPLE_BAD", "bad");
    expect("cause" in error).toBe(false);
    expect(Object.keys(error).sort()).toEqual(["code", "name"]);
  });
});
