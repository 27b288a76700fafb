import { describe, expect, it } from "vitest";
import { browserRequired } from "./chromium.js";

describe("browserRequired", () => {
  it("is true in CI or with SVC_REQUIRE_BROWSER=1", () => {
    expect(browserRequired({ CI: "true" })).toBe(true);
    expect(browserRequired({ CI: "1" })).toBe(true);
    expect(browserRequired({ SVC_REQUIRE_BROWSER: "1" })).toBe(true);
  });

  it("is false otherwise, CI=0 and CI=false included", () => {
    expect(browserRequired({})).toBe(false);
    expect(browserRequired({ CI: "" })).toBe(false);
    expect(browserRequired({ CI: "0" })).toBe(false);
    expect(browserRequired({ CI: "false" })).toBe(false);
    expect(browserRequired({ SVC_REQUIRE_BROWSER: "0" })).toBe(false);
  });
});
