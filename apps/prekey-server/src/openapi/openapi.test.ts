import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createContractChecker, expectContract } from "../test-support/contract.js";
import { openApiDocument, openApiText } from "./document.js";

type JsonObject = Record<string, unknown>;

/** Every route of interface.md (plus the observer event stream and page). */
const ROUTES: Array<[method: string, path: string]> = [
  ["get", "/health"],
  ["get", "/healthz"],
  ["get", "/ready"],
  ["get", "/metrics"],
  ["get", "/openapi.yaml"],
  ["get", "/svc-observer/api/state"],
  ["get", "/svc-observer/api/events"],
  ["get", "/svc-observer/"],
  ["post", "/v1/keys/register"],
  ["get", "/v1/keys/bundle/{address}"],
  ["get", "/v1/keys/count/{address}"],
  ["post", "/v1/keys/replenish"],
  ["delete", "/v1/keys/{address}"],
  ["get", "/v1/kt/log_id"],
  ["get", "/v1/kt/sth"],
  ["get", "/v1/kt/sth/{treeSize}"],
  ["get", "/v1/kt/consistency"],
  ["get", "/v1/kt/leaves"],
  ["get", "/v1/kt/checkpoint"],
  ["get", "/v1/kt/vrf/{address}"],
  ["post", "/v1/inbox/register"],
  ["delete", "/v1/inbox/register/{address}"],
  ["post", "/v1/inbox/{address}"],
  ["post", "/v1/inbox/{address}/fetch"],
  ["delete", "/v1/inbox/{address}/{msgId}"],
  ["get", "/v1/bridge/stream"],
  ["get", "/v1/bridge/poll"],
  ["get", "/v1/bridge/ws"],
  ["get", "/v1/bridge/presence"],
  ["get", "/v1/transfer/health"],
  ["post", "/v1/transfer/{streamId}/chunk"],
  ["get", "/v1/transfer/{streamId}/state"],
  ["post", "/v1/transfer/control"],
];

/** The error codes of decisions D4 (the description may add more). */
const D4_CODES = [
  "SVC_BAD_REQUEST",
  "SVC_INVALID_ADDRESS",
  "SVC_INVALID_KEY",
  "SVC_INVALID_SIGNED_PREKEY",
  "SVC_BAD_SIGNATURE",
  "SVC_STALE_SIGNATURE",
  "SVC_IDENTITY_MISMATCH",
  "SVC_WRONG_KEY",
  "SVC_NOT_REGISTERED",
  "SVC_NOT_FOUND",
  "SVC_STH_NOT_FOUND",
  "SVC_BLOB_NOT_FOUND",
  "SVC_STREAM_NOT_FOUND",
  "SVC_MSGID_MISMATCH",
  "SVC_REPLAY",
  "SVC_OUT_OF_ORDER",
  "SVC_INVALID_TRANSITION",
  "SVC_TOO_LARGE",
  "SVC_RATE_LIMITED",
  "SVC_QUOTA_EXCEEDED",
  "SVC_TOO_MANY_WATCHED",
  "SVC_FEATURE_DISABLED",
  "SVC_UNAVAILABLE",
  "SVC_INTERNAL",
];

const doc = openApiDocument();
const paths = doc.paths as Record<string, JsonObject>;
const schemas = (doc.components as JsonObject).schemas as Record<string, JsonObject>;

function operations(): Array<{ method: string; path: string; op: JsonObject }> {
  const ops: Array<{ method: string; path: string; op: JsonObject }> = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of ["get", "put", "post", "delete", "patch", "head", "options", "trace"]) {
      const op = item[method];
      if (op) ops.push({ method, path, op: op as JsonObject });
    }
  }
  return ops;
}

function deref(value: unknown): JsonObject {
  let current = value as JsonObject;
  while (typeof current.$ref === "string") {
    let target: unknown = doc;
    for (const token of current.$ref.slice(2).split("/")) {
      target = (target as JsonObject)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    current = target as JsonObject;
  }
  return current;
}

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, out);
  else if (value && typeof value === "object") {
    for (const [key, member] of Object.entries(value)) {
      if (key === "$ref" && typeof member === "string") out.push(member);
      else collectRefs(member, out);
    }
  }
  return out;
}

describe("openapi.yaml", () => {
  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("lets the validator fail on a broken document", async () => {
    const broken = structuredClone(doc);
    delete broken.info;
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it("carries version 4.0.0 and the title", () => {
    expect(doc.openapi).toBe("3.1.0");
    const info = doc.info as JsonObject;
    expect(info.version).toBe("4.0.0");
    expect(info.title).toBe("svc prekey directory, inbox relay and bridges");
    expect(openApiText().startsWith("openapi: 3.1.0\n")).toBe(true);
    expect(openApiDocument()).toBe(doc);
  });

  it("documents every route of the interface, and no other", () => {
    const documented = operations().map(({ method, path }) => `${method} ${path}`);
    expect(documented.sort()).toEqual(ROUTES.map(([m, p]) => `${m} ${p}`).sort());
  });

  it("resolves every $ref", () => {
    for (const ref of collectRefs(doc)) {
      expect(ref.startsWith("#/"), ref).toBe(true);
      expect(() => deref({ $ref: ref }), ref).not.toThrow();
      expect(deref({ $ref: ref }), ref).toBeTypeOf("object");
    }
  });

  it("gives every operation a unique operationId, a tag and responses", () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, path, op } of operations()) {
      expect(op.tags, `${method} ${path}`).toHaveLength(1);
      expect(Object.keys(op.responses as JsonObject).length, `${method} ${path}`).toBeGreaterThan(
        1,
      );
    }
  });

  it("declares exactly the path parameters of each template", () => {
    for (const { method, path, op } of operations()) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = ((op.parameters as unknown[] | undefined) ?? [])
        .map(deref)
        .filter((p) => p.in === "path")
        .map((p) => {
          expect(p.required, `${method} ${path} ${String(p.name)}`).toBe(true);
          return p.name;
        })
        .sort();
      expect(declared, `${method} ${path}`).toEqual(inTemplate);
    }
  });

  it("lists every D4 error code in ErrorResponse and x-error-codes", () => {
    const errorResponse = schemas.ErrorResponse as JsonObject;
    const code = (errorResponse.properties as JsonObject).code as JsonObject;
    expect(code.pattern).toBe("^SVC_");
    const enumCodes = code.enum as string[];
    for (const c of D4_CODES) expect(enumCodes).toContain(c);
    for (const c of enumCodes) expect(c).toMatch(/^SVC_[A-Z_]+$/);
    const listed = (doc["x-error-codes"] as Array<{ code: string; meaning: string }>).map(
      (e) => e.code,
    );
    expect([...listed].sort()).toEqual([...enumCodes].sort());
  });

  it("answers every error status with an ErrorResponse body", () => {
    for (const { method, path, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as JsonObject)) {
        if (Number(status) < 400 || path === "/health" || path === "/ready") continue;
        const schema = (deref(response).content as JsonObject)["application/json"] as JsonObject;
        const text = JSON.stringify(schema.schema);
        expect(text, `${method} ${path} ${status}`).toMatch(
          /ErrorResponse|TransferConflict|BundleNotFound/,
        );
      }
    }
  });

  it("puts Retry-After on every 429", () => {
    for (const { method, path, op } of operations()) {
      const tooMany = (op.responses as JsonObject)["429"];
      if (tooMany === undefined) continue;
      const headers = deref(tooMany).headers as JsonObject;
      expect(deref(headers["Retry-After"]).required, `${method} ${path}`).toBe(true);
    }
  });

  it("closes every JSON request body to undocumented members", () => {
    for (const { method, path, op } of operations()) {
      if (op.requestBody === undefined) continue;
      const content = deref(op.requestBody).content as JsonObject;
      const json = content["application/json"] as JsonObject | undefined;
      if (json === undefined) continue;
      expect(deref(json.schema).additionalProperties, `${method} ${path}`).toBe(false);
    }
  });

  it("uses the D2 address pattern, with @", () => {
    const pattern = new RegExp(schemas.Address?.pattern as string, "u");
    for (const ok of ["alice@example.org:device1", "device:1234", "a", "key:AbC-_9"]) {
      expect(pattern.test(ok), ok).toBe(true);
    }
    for (const bad of ["", "-a", "a,b", "a b", "a/b", "x".repeat(257)]) {
      expect(pattern.test(bad), bad).toBe(false);
    }
  });

  it("accepts exactly strict padded base64", () => {
    const base64 = new RegExp(schemas.Base64?.pattern as string, "u");
    const key32 = new RegExp(schemas.Base64Key32?.pattern as string, "u");
    const sig64 = new RegExp(schemas.Signature64?.pattern as string, "u");
    for (let n = 0; n < 40; n++) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff));
      expect(base64.test(bytes.toString("base64")), `length ${n}`).toBe(true);
    }
    expect(key32.test(Buffer.alloc(32, 0xff).toString("base64"))).toBe(true);
    expect(sig64.test(Buffer.alloc(64, 0xff).toString("base64"))).toBe(true);
    expect(key32.test(Buffer.alloc(31).toString("base64"))).toBe(false);
    expect(sig64.test(Buffer.alloc(65).toString("base64"))).toBe(false);
    for (const bad of ["QQ", "QQ=", "QR==", "Q===", "A-B_", "AAAA\n", " AAA"]) {
      expect(base64.test(bad), bad).toBe(false);
    }
  });
});

// ------------------------------------------------------------------ contract checker

const json = new Headers({ "content-type": "application/json; charset=utf-8" });
const key = Buffer.alloc(32, 7).toString("base64");
const sig = Buffer.alloc(64, 9).toString("base64");
const bundle = {
  identitySigningKey: key,
  identityDHKey: key,
  signedPreKey: { keyId: 1, publicKey: key, signature: sig },
  oneTimePreKey: { keyId: 2, publicKey: key },
};
const error = (code: string) => ({ name: "Error", code, message: "m" });

describe("createContractChecker", () => {
  const checker = createContractChecker();
  const address = "alice@example.org:dev.1";

  it("accepts documented responses", () => {
    checker.check("GET", `/v1/keys/bundle/${address}`, 200, json, bundle);
    checker.check("GET", `/v1/keys/bundle/${encodeURIComponent(address)}`, 200, json, {
      ...bundle,
      futureMember: true,
    });
    checker.check("get", "/health", 200, json, { status: "ok", service: "svc-prekey-server" });
    checker.check("GET", "/health", 503, json, { status: "error", service: "svc-prekey-server" });
    checker.check("GET", "/v1/keys/count/bob?x=1", 200, json, { count: 0 });
    checker.check("GET", "http://localhost/v1/kt/sth/3", 404, json, error("SVC_STH_NOT_FOUND"));
    checker.check("GET", "/metrics", 200, new Headers({ "content-type": "text/plain" }), "x 1");
    checker.check(
      "POST",
      "/v1/keys/register",
      429,
      new Headers({ "content-type": "application/json", "retry-after": "3" }),
      error("SVC_RATE_LIMITED"),
    );
    checker.check("POST", "/v1/transfer/AAAAAAAAAAAAAAAAAAAAAA/chunk", 409, json, {
      ...error("SVC_REPLAY"),
      lastSeqAcked: "4",
    });
    checker.check("GET", "/v1/bridge/ws", 101, new Headers(), undefined);
  });

  it("prefers literal segments over templates", () => {
    // POST /v1/inbox/register is inbox register, not a deposit to the address "register".
    checker.check("POST", "/v1/inbox/register", 200, json, { ok: true });
    expect(() => checker.check("POST", "/v1/inbox/alice", 200, json, { ok: true })).toThrow(
      /body does not match/,
    );
    checker.check("POST", "/v1/inbox/alice", 200, json, { idempotent: true });
  });

  it("rejects an undocumented path or method", () => {
    expect(() => checker.check("GET", "/v1/nope", 200, json, {})).toThrow(/no documented path/);
    expect(() => checker.check("GET", "/v1/keys/bundle/a/b", 200, json, {})).toThrow(
      /no documented path/,
    );
    expect(() => checker.check("PUT", "/health", 200, json, {})).toThrow(/method PUT/);
  });

  it("rejects an undocumented status", () => {
    expect(() =>
      checker.check("GET", "/v1/keys/count/a", 404, json, error("SVC_NOT_FOUND")),
    ).toThrow(/status 404 is not documented/);
    expect(() => checker.check("POST", "/v1/keys/register", 201, json, { ok: true })).toThrow(
      /status 201/,
    );
  });

  it("rejects a missing member, a wrong type or a wrong error code", () => {
    const { identityDHKey: _, ...incomplete } = bundle;
    expect(() => checker.check("GET", "/v1/keys/bundle/a", 200, json, incomplete)).toThrow(
      /identityDHKey/,
    );
    expect(() => checker.check("GET", "/v1/keys/count/a", 200, json, { count: "3" })).toThrow(
      /must be integer/,
    );
    expect(() =>
      checker.check("GET", "/v1/keys/bundle/a", 200, json, { ...bundle, identityDHKey: "AAAA" }),
    ).toThrow(/pattern/);
    expect(() =>
      checker.check("GET", "/v1/keys/bundle/a", 404, json, error("SVC_INTERNAL")),
    ).toThrow(/allowedValues/);
    expect(() =>
      checker.check("GET", "/v1/keys/bundle/a", 404, json, {
        name: "X",
        code: "NOPE",
        message: "",
      }),
    ).toThrow(/body does not match/);
    expect(() =>
      checker.check(
        "POST",
        "/v1/transfer/AAAAAAAAAAAAAAAAAAAAAA/chunk",
        409,
        json,
        error("SVC_REPLAY"),
      ),
    ).toThrow(/lastSeqAcked/);
  });

  it("rejects a wrong Content-Type", () => {
    const text = new Headers({ "content-type": "text/plain" });
    expect(() => checker.check("GET", "/v1/keys/count/a", 200, text, "{}")).toThrow(/Content-Type/);
    expect(() => checker.check("GET", "/v1/keys/count/a", 200, new Headers(), {})).toThrow(
      /Content-Type is missing/,
    );
  });

  it("requires Retry-After on a 429", () => {
    expect(() =>
      checker.check("POST", "/v1/inbox/a", 429, json, error("SVC_QUOTA_EXCEEDED")),
    ).toThrow(/Retry-After/);
    const zero = new Headers({ "content-type": "application/json", "retry-after": "0" });
    expect(() =>
      checker.check("POST", "/v1/inbox/a", 429, zero, error("SVC_QUOTA_EXCEEDED")),
    ).toThrow(/Retry-After/);
  });
});

describe("expectContract", () => {
  it("parses, checks and returns a JSON body", async () => {
    const res = Response.json({ count: 5 });
    await expect(expectContract(res, "GET", "/v1/keys/count/a")).resolves.toEqual({ count: 5 });
  });

  it("returns text bodies as text", async () => {
    const res = new Response("openapi: 3.1.0\n", {
      headers: { "content-type": "application/yaml" },
    });
    await expect(expectContract(res, "GET", "/openapi.yaml")).resolves.toBe("openapi: 3.1.0\n");
  });

  it("fails on a body that is not JSON or not documented", async () => {
    const notJson = new Response("{", { headers: { "content-type": "application/json" } });
    await expect(expectContract(notJson, "GET", "/v1/keys/count/a")).rejects.toThrow(/not JSON/);
    const wrong = Response.json({ count: -1 });
    await expect(expectContract(wrong, "GET", "/v1/keys/count/a")).rejects.toThrow(/>= 0/);
  });
});
