import { describe, expect, it } from "vitest";
import { createLogger, LOG_LEVELS } from "./logger.js";

describe("createLogger", () => {
  it("writes one JSON object per line, at or above its level", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (line) => lines.push(line));
    logger.debug("hidden");
    logger.info("started", { port: 8080 });
    logger.error("failed", { route: "/v1/keys", status: 500 });
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith("}\n"))).toBe(true);
    const [started, failed] = lines.map((line) => JSON.parse(line));
    expect(started).toEqual({
      time: expect.any(String),
      level: "info",
      message: "started",
      port: 8080,
    });
    expect(new Date(started.time).toISOString()).toBe(started.time);
    expect(failed).toMatchObject({
      level: "error",
      message: "failed",
      route: "/v1/keys",
      status: 500,
    });
  });

  it("writes nothing when silent", () => {
    const lines: string[] = [];
    const logger = createLogger("silent", (line) => lines.push(line));
    for (const level of ["debug", "info", "warn", "error"] as const) logger[level]("x");
    expect(lines).toEqual([]);
    expect(LOG_LEVELS).toEqual(["debug", "info", "warn", "error", "silent"]);
  });
});
