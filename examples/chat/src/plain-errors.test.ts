import { ClientError, SvcError } from "@svc/client";
import { describe, expect, it } from "vitest";
import { plainProblem } from "./page/plain-errors.js";

describe("plainProblem", () => {
  it("says what a client or server failure means, naming the peer, with its code", () => {
    expect(plainProblem(new ClientError("DEVICE_LIST_INVALID", "signature"), "bob")).toEqual({
      code: "DEVICE_LIST_INVALID",
      sentence:
        "The list of bob's devices could not be verified (it may name a device that is not theirs), so nothing was sent.",
    });
    expect(plainProblem(new SvcError("SVC_NOT_FOUND", "no bundle"), "nobody")).toEqual({
      code: "SVC_NOT_FOUND",
      sentence:
        "There is no one called nobody on this server. Check the address (like bob, or bob:1).",
    });
    expect(plainProblem(new ClientError("LINK_TIMEOUT", "no answer")).sentence).toBe(
      "No answer came from the other device in time. Make sure it shows a code, then try again.",
    );
  });

  it("reads a failed fetch as the server out of reach, and a bad address as one", () => {
    expect(plainProblem(new TypeError("Failed to fetch")).code).toBe("NETWORK");
    expect(plainProblem(new RangeError("to is not a valid address")).sentence).toBe(
      "That address is not valid: write it like bob or bob:1.",
    );
  });

  it("never shows a raw message or a stack, even of a failure it does not know", () => {
    const error = new Error("at Object.<anonymous> (/secret/path.js:1:1)");
    expect(plainProblem(error)).toEqual({
      code: "UNEXPECTED",
      sentence: "Something went wrong (UNEXPECTED). Try again.",
    });
    expect(plainProblem(new SvcError("SVC_REPLAY", "msgId seen")).sentence).toBe(
      "Something went wrong (SVC_REPLAY). Try again.",
    );
  });
});
