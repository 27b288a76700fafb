import { ConfigError } from "@svc/node-kit";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      dataDir: "./data",
      databaseUrl: undefined,
      kt: { enabled: true, signingKey: undefined },
      inbox: {
        enabled: true,
        maxBlobBytes: 1048576,
        quota: 1000,
        minTtlMs: 60000,
        maxTtlMs: 2592000000,
        presenceHeartbeatMs: 10000,
        presenceExpiryMs: 30000,
      },
      push: {
        enabled: true,
        vapidKey: undefined,
        contact: undefined,
        allowPrivateEndpoints: false,
        coalesceMs: 30000,
      },
      http: {
        headersTimeoutMs: 10000,
        requestTimeoutMs: 60000,
        keepAliveTimeoutMs: 5000,
        maxConnections: undefined,
      },
      observerToken: undefined,
      rateLimit: {
        enabled: true,
        registerPerAddress: 20,
        registerPerIp: 100,
        replenishPerAddress: 60,
        bundlePerIp: 120,
        bundlePerAddress: 600,
      },
      trustProxy: 0,
      logLevel: "info",
    });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      SVC_HOST: "0.0.0.0",
      SVC_PORT: "9000",
      SVC_DATA_DIR: "/var/lib/svc",
      DATABASE_URL: "postgres://svc@db/svc",
      SVC_KT: "off",
      SVC_KT_SIGNING_KEY: "V+XgpeE5hfue6bhO6kWhHytw6TFPuGkMsskEfce1lI8=",
      SVC_INBOX: "off",
      SVC_OBSERVER_TOKEN: "0123456789abcdef0123",
      SVC_RATE_LIMIT: "off",
      SVC_TRUST_PROXY: "2",
      SVC_INBOX_MAX_BLOB_BYTES: "2048",
      SVC_INBOX_QUOTA: "5",
      SVC_INBOX_MIN_TTL_MS: "1000",
      SVC_INBOX_MAX_TTL_MS: "5000",
      SVC_LOG_LEVEL: "warn",
    });
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 9000,
      dataDir: "/var/lib/svc",
      databaseUrl: "postgres://svc@db/svc",
      kt: { enabled: false, signingKey: "V+XgpeE5hfue6bhO6kWhHytw6TFPuGkMsskEfce1lI8=" },
      inbox: { enabled: false, maxBlobBytes: 2048, quota: 5, minTtlMs: 1000, maxTtlMs: 5000 },
      observerToken: "0123456789abcdef0123",
      rateLimit: { enabled: false },
      trustProxy: 2,
      logLevel: "warn",
    });
    expect(loadConfig({ SVC_TRUST_PROXY: "on" }).trustProxy).toBe(1);
  });

  it("reports one clear message per bad value, all at once", () => {
    let error: unknown;
    try {
      loadConfig({
        SVC_PORT: "80a",
        SVC_KT: "yes",
        SVC_KT_SIGNING_KEY: "short",
        DATABASE_URL: "mysql://x",
        SVC_LOG_LEVEL: "loud",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(5);
    expect(problems.join("\n")).toMatch(/SVC_PORT: must be a whole number/);
    expect(problems.join("\n")).toMatch(/SVC_KT: must be on or off/);
    expect(problems.join("\n")).toMatch(/SVC_KT_SIGNING_KEY: must be the base64 of a 32-byte/);
    expect(problems.join("\n")).toMatch(/DATABASE_URL: must be a postgres/);
    expect(problems.join("\n")).toMatch(/SVC_LOG_LEVEL: must be one of/);
  });

  it("rejects out-of-range numbers and inconsistent TTLs", () => {
    expect(() => loadConfig({ SVC_PORT: "70000" })).toThrow(/SVC_PORT: must be at most 65535/);
    expect(() => loadConfig({ SVC_INBOX_QUOTA: "0" })).toThrow(
      /SVC_INBOX_QUOTA: must be at least 1/,
    );
    expect(() => loadConfig({ SVC_INBOX_MIN_TTL_MS: "10", SVC_INBOX_MAX_TTL_MS: "5" })).toThrow(
      /SVC_INBOX_MIN_TTL_MS: must not exceed/,
    );
    expect(() => loadConfig({ SVC_OBSERVER_TOKEN: "short" })).toThrow(/at least 16 characters/);
  });

  it("reads the presence timings and the HTTP server's limits", () => {
    const config = loadConfig({
      SVC_PRESENCE_HEARTBEAT_MS: "500",
      SVC_PRESENCE_EXPIRY_MS: "2000",
      SVC_HEADERS_TIMEOUT_MS: "3000",
      SVC_REQUEST_TIMEOUT_MS: "5000",
      SVC_KEEP_ALIVE_TIMEOUT_MS: "2000",
      SVC_MAX_CONNECTIONS: "20000",
    });
    expect(config.inbox).toMatchObject({ presenceHeartbeatMs: 500, presenceExpiryMs: 2000 });
    expect(config.http).toEqual({
      headersTimeoutMs: 3000,
      requestTimeoutMs: 5000,
      keepAliveTimeoutMs: 2000,
      maxConnections: 20000,
    });
  });

  it("refuses an expiry under two heartbeats and a request timeout under the headers timeout", () => {
    expect(() =>
      loadConfig({ SVC_PRESENCE_HEARTBEAT_MS: "1000", SVC_PRESENCE_EXPIRY_MS: "1999" }),
    ).toThrow(/SVC_PRESENCE_EXPIRY_MS: must be at least twice SVC_PRESENCE_HEARTBEAT_MS/);
    expect(() =>
      loadConfig({ SVC_HEADERS_TIMEOUT_MS: "20000", SVC_REQUEST_TIMEOUT_MS: "10000" }),
    ).toThrow(/SVC_REQUEST_TIMEOUT_MS: must not be below SVC_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ SVC_HEADERS_TIMEOUT_MS: "999" })).toThrow(
      /SVC_HEADERS_TIMEOUT_MS: must be at least 1000/,
    );
  });

  it("reads the Web Push settings and refuses bad ones", () => {
    const config = loadConfig({
      SVC_PUSH: "off",
      SVC_PUSH_VAPID_KEY: "q1n3yXh3cVw0cF9YyN8bC4sG3LQ3rH1eW2QXsZ9e0bY",
      SVC_PUSH_CONTACT: "mailto:ops@example.org",
      SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on",
      SVC_PUSH_COALESCE_MS: "0",
    });
    expect(config.push).toEqual({
      enabled: false,
      vapidKey: "q1n3yXh3cVw0cF9YyN8bC4sG3LQ3rH1eW2QXsZ9e0bY",
      contact: "mailto:ops@example.org",
      allowPrivateEndpoints: true,
      coalesceMs: 0,
    });
    expect(loadConfig({ SVC_PUSH_CONTACT: "https://example.org/ops" }).push.contact).toBe(
      "https://example.org/ops",
    );
    expect(() => loadConfig({ SVC_PUSH_CONTACT: "ops@example.org" })).toThrow(
      /SVC_PUSH_CONTACT: must be a mailto: or https: URL/,
    );
    expect(() => loadConfig({ SVC_PUSH_CONTACT: "http://example.org" })).toThrow(
      /SVC_PUSH_CONTACT: must be a mailto: or https: URL/,
    );
    expect(() =>
      loadConfig({ SVC_PUSH_VAPID_KEY: "q1n3yXh3cVw0cF9YyN8bC4sG3LQ3rH1eW2QXsZ9e0bY=" }),
    ).toThrow(/SVC_PUSH_VAPID_KEY: must be the base64url of a 32-byte P-256 private key/);
    expect(() => loadConfig({ SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "yes" })).toThrow(
      /SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: must be on or off/,
    );
    expect(() => loadConfig({ SVC_PUSH_COALESCE_MS: "-1" })).toThrow(/SVC_PUSH_COALESCE_MS/);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", SVC_PORT: "" }).port).toBe(8080);
  });
});
