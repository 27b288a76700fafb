import { describe, expect, it } from "vitest";
import { isDatabaseUnreachable } from "./unreachable.js";

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe("isDatabaseUnreachable", () => {
  it("recognizes a refused, reset or timed-out connection and a server going away", () => {
    for (const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "ETIMEDOUT",
      "CONNECTION_CLOSED",
      "CONNECTION_ENDED",
      "CONNECT_TIMEOUT",
      "57P01", // admin_shutdown: pg_ctl stop -m fast
      "57P03", // cannot_connect_now: starting up or shutting down
      "08006", // connection_failure
      "53300", // too_many_connections
    ]) {
      expect(isDatabaseUnreachable(withCode(code)), code).toBe(true);
    }
  });

  it("looks through the causes a query builder wraps the driver's error in", () => {
    const driver = withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432");
    const wrapped = new Error("Failed query: select 1", { cause: driver });
    expect(isDatabaseUnreachable(new Error("outer", { cause: wrapped }))).toBe(true);
  });

  it("leaves failed statements and anything else to be a 500", () => {
    for (const error of [
      withCode("23505"), // unique_violation
      withCode("42P01"), // undefined_table
      withCode("40001"), // serialization_failure
      new Error("ECONNREFUSED in the message only"),
      new TypeError("x is not a function"),
      "ECONNREFUSED",
      { code: "ECONNREFUSED" },
      null,
      undefined,
    ]) {
      expect(isDatabaseUnreachable(error)).toBe(false);
    }
  });

  it("stops on a cycle of causes", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    Object.assign(a, { cause: b });
    expect(isDatabaseUnreachable(a)).toBe(false);
  });
});
