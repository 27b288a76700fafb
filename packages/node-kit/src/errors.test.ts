import { CodedError } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./errors.js";

describe("ConfigError", () => {
  it("is a CodedError with the stable code CONFIG, listing every problem", () => {
    const error = new ConfigError(["SVC_A: must be on or off", "SVC_B: must be at most 10"]);
    expect(error).toBeInstanceOf(CodedError);
    expect(error.code).toBe("CONFIG");
    expect(error.name).toBe("ConfigError");
    expect(error.problems).toEqual(["SVC_A: must be on or off", "SVC_B: must be at most 10"]);
    expect(error.message).toBe(
      "invalid configuration:\n  - SVC_A: must be on or off\n  - SVC_B: must be at most 10",
    );
  });
});
