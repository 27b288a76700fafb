import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { loadEnv, onOff, wholeNumber } from "./env.js";
import { ConfigError } from "./errors.js";

const Schema = v.object({ SVC_FLAG: onOff("on"), SVC_COUNT: wholeNumber(5, 1, 10) });

describe("loadEnv", () => {
  it("applies defaults and treats an empty value as unset", () => {
    expect(loadEnv(Schema, { SVC_FLAG: "" })).toEqual({ SVC_FLAG: true, SVC_COUNT: 5 });
    expect(loadEnv(Schema, { SVC_FLAG: "off", SVC_COUNT: "10" })).toEqual({
      SVC_FLAG: false,
      SVC_COUNT: 10,
    });
  });

  it("reports every bad variable at once", () => {
    let thrown: unknown;
    try {
      loadEnv(Schema, { SVC_FLAG: "yes", SVC_COUNT: "11" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual([
      "SVC_FLAG: must be on or off",
      "SVC_COUNT: must be at most 10",
    ]);
  });
});
