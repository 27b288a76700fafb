import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_STATUS, errorName, SvcError, staleSignature } from "./errors.js";

describe("SvcError", () => {
  it("takes its status from the code and renders the ErrorResponse", () => {
    const error = new SvcError("SVC_OUT_OF_ORDER", "seq 7 skips ahead", {
      extra: { lastSeqAcked: "5" },
    });
    expect(error.status).toBe(409);
    expect(error.body()).toEqual({
      name: "Conflict",
      code: "SVC_OUT_OF_ORDER",
      message: "seq 7 skips ahead",
      lastSeqAcked: "5",
    });
  });

  it("keeps the cause and the Retry-After seconds", () => {
    const cause = new Error("db");
    const error = new SvcError("SVC_QUOTA_EXCEEDED", "full", { cause, retryAfterSeconds: 3 });
    expect(error.cause).toBe(cause);
    expect(error.retryAfterSeconds).toBe(3);
    expect(error.body().name).toBe("TooManyRequests");
  });

  it("answers a stale signature with 409 on inbox routes and 401 elsewhere", () => {
    expect(staleSignature("inbox").status).toBe(409);
    expect(staleSignature("other").status).toBe(401);
    expect(staleSignature("inbox").code).toBe("SVC_STALE_SIGNATURE");
  });
});

describe("ERROR_STATUS", () => {
  it("gives every code an SVC_ name and a status with an ErrorResponse name", () => {
    for (const code of ERROR_CODES) {
      expect(code).toMatch(/^SVC_[A-Z_]+$/);
      expect(errorName(ERROR_STATUS[code])).not.toBe("Error");
    }
  });
});
