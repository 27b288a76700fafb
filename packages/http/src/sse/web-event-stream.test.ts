import { describe, expect, it } from "vitest";
import { createWebEventStream, MAX_QUEUED_BYTES } from "./web-event-stream.js";

const EVENT = "x".repeat(60 * 1024);

describe("createWebEventStream", () => {
  it("cuts off a client that does not read once more than 1 MiB waits for it", async () => {
    let closes = 0;
    const stream = createWebEventStream(() => closes++);
    let written = 0;
    while (closes === 0 && written < 4 * MAX_QUEUED_BYTES) {
      stream.event("snapshot", EVENT);
      written += EVENT.length;
    }
    expect(closes).toBe(1);
    expect(written).toBeGreaterThan(MAX_QUEUED_BYTES);
    expect(written).toBeLessThan(MAX_QUEUED_BYTES + 2 * EVENT.length);
    stream.event("snapshot", EVENT); // ignored, and no second close
    stream.close();
    expect(closes).toBe(1);
    await expect(stream.response.body?.getReader().read()).rejects.toThrow(/behind/);
  });

  it("keeps a client that reads as events come", async () => {
    let closes = 0;
    const stream = createWebEventStream(() => closes++);
    const reader = stream.response.body?.getReader();
    let received = 0;
    for (let i = 0; i < 80; i++) {
      stream.event("snapshot", EVENT);
      const { value } = (await reader?.read()) ?? {};
      received += value?.byteLength ?? 0;
    }
    expect(received).toBeGreaterThan(4 * MAX_QUEUED_BYTES);
    expect(closes).toBe(0);
    stream.close();
    expect(closes).toBe(1);
  });
});
