import { CodedError } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { MoveRefused } from "./errors.js";

describe("MoveRefused", () => {
  it("is a CodedError whose code is the refusal's", () => {
    const refused = new MoveRefused("TARGET_NOT_EMPTY", 'the target\'s table "t" holds rows');
    expect(refused).toBeInstanceOf(CodedError);
    expect(refused).toMatchObject({
      name: "MoveRefused",
      code: "TARGET_NOT_EMPTY",
      message: 'the target\'s table "t" holds rows',
    });
  });
});
