import { ConfigError } from "@svc/node-kit";
import {
  DEFAULT_MAX_RESERVED_BYTES,
  DEFAULT_MAX_RESERVED_BYTES_PER_SENDER,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_STREAMS_PER_SENDER,
  DEFAULT_PARTIAL_TTL_MS,
  loadTransferConfig,
} from "@svc/transfer-peer";
import { describe, expect, it } from "vitest";

const GIB = 1024 ** 3;
const load = (env: Record<string, string>) => loadTransferConfig(env, { store: "file" });

describe("the receiver's bounds", () => {
  it("default to the library's: one largest stream of 64 GiB for the app and the library", () => {
    expect(load({})).toMatchObject({
      maxStreamBytes: 64 * GIB,
      maxStreamsPerSender: 16,
      maxReservedBytesPerSender: 64 * GIB,
      maxReservedBytes: 256 * GIB,
      partialTtlMs: 24 * 60 * 60_000,
    });
    expect(load({})).toMatchObject({
      maxStreamBytes: DEFAULT_MAX_STREAM_BYTES,
      maxStreamsPerSender: DEFAULT_MAX_STREAMS_PER_SENDER,
      maxReservedBytesPerSender: DEFAULT_MAX_RESERVED_BYTES_PER_SENDER,
      maxReservedBytes: DEFAULT_MAX_RESERVED_BYTES,
      partialTtlMs: DEFAULT_PARTIAL_TTL_MS,
    });
  });

  it("are read from SVC_TRANSFER_* variables", () => {
    expect(
      load({
        SVC_TRANSFER_MAX_STREAM_BYTES: "1000",
        SVC_TRANSFER_MAX_STREAMS_PER_SENDER: "3",
        SVC_TRANSFER_MAX_RESERVED_BYTES_PER_SENDER: "2000",
        SVC_TRANSFER_MAX_RESERVED_BYTES: "5000",
        SVC_TRANSFER_PARTIAL_TTL_MS: "60000",
      }),
    ).toMatchObject({
      maxStreamBytes: 1000,
      maxStreamsPerSender: 3,
      maxReservedBytesPerSender: 2000,
      maxReservedBytes: 5000,
      partialTtlMs: 60_000,
    });
  });

  it("refuses bad values all at once, each on a line naming its variable", () => {
    let error: unknown;
    try {
      load({
        SVC_TRANSFER_MAX_STREAM_BYTES: "0",
        SVC_TRANSFER_MAX_STREAMS_PER_SENDER: "-1",
        SVC_TRANSFER_MAX_RESERVED_BYTES_PER_SENDER: "1e9",
        SVC_TRANSFER_MAX_RESERVED_BYTES: "many",
        SVC_TRANSFER_PARTIAL_TTL_MS: "59999",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).problems;
    for (const name of [
      "SVC_TRANSFER_MAX_STREAM_BYTES",
      "SVC_TRANSFER_MAX_STREAMS_PER_SENDER",
      "SVC_TRANSFER_MAX_RESERVED_BYTES_PER_SENDER",
      "SVC_TRANSFER_MAX_RESERVED_BYTES",
      "SVC_TRANSFER_PARTIAL_TTL_MS",
    ]) {
      expect(lines.some((line) => line.startsWith(`${name}:`))).toBe(true);
    }
  });
});
