import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import {
  ERROR_CODES,
  type ErrorCode,
  errorName,
  errorStatus,
  ROUTES,
  type RouteContract,
} from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createTestApp } from "../test-support/app.js";
import { createContractChecker, expectContract } from "../test-support/contract.js";
import { openApiDocument, openApiText } from "./document.js";

type JsonObject = Record<string, unknown>;

const doc = openApiDocument();
const paths = doc.paths as Record<string, JsonObject>;
const schemas = (doc.components as JsonObject).schemas as Record<string, JsonObject>;
const documentedRoutes = (Object.entries(ROUTES) as Array<[string, RouteContract]>).filter(
  ([, route]) => !route.undocumented,
);

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

/** Every object schema in `value` (a schema or a part of the document), $refs not followed. */
function objectSchemas(value: unknown, at: string, out: Array<[string, JsonObject]> = []) {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) objectSchemas(item, `${at}[${i}]`, out);
  } else if (value && typeof value === "object") {
    const object = value as JsonObject;
    if (object.type === "object" && object.properties !== undefined) out.push([at, object]);
    for (const [key, member] of Object.entries(object)) objectSchemas(member, `${at}.${key}`, out);
  }
  return out;
}

describe("the OpenAPI document generated from ROUTES", () => {
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

  it("has no error under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({
      source: openApiText(),
      absoluteRef: "openapi.yaml",
      config,
    });
    const errors = problems
      .filter((problem) => problem.severity === "error")
      .map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it("lets Redocly find an error in a broken document", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const broken = structuredClone(doc);
    (broken.paths as JsonObject)["/trailing/"] = (broken.paths as JsonObject)["/health"];
    const problems = await lintFromString({
      source: JSON.stringify(broken),
      absoluteRef: "openapi.json",
      config,
    });
    expect(problems.map((problem) => problem.ruleId)).toContain("no-path-trailing-slash");
  });

  it("is served at /openapi.yaml as YAML", async () => {
    const { app } = await createTestApp();
    const res = await app.request("/openapi.yaml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    const text = await res.text();
    expect(text).toBe(openApiText());
    expect(text.startsWith("openapi: 3.1.0\n")).toBe(true);
    expect(parse(text)).toEqual(doc);
  });

  it("documents every route of ROUTES, and no other", () => {
    const documented = operations().map(({ method, path, op }) => [op.operationId, method, path]);
    const contracted = documentedRoutes.map(([name, route]) => [
      name,
      route.method.toLowerCase(),
      route.path,
    ]);
    expect(documented.sort()).toEqual(contracted.sort());
  });

  it("resolves every $ref", () => {
    for (const ref of collectRefs(doc)) {
      expect(ref.startsWith("#/"), ref).toBe(true);
      expect(deref({ $ref: ref }), ref).toBeTypeOf("object");
    }
  });

  it("gives every operation a tag and an error answer, and serves transfer from a receiver", () => {
    for (const { method, path, op } of operations()) {
      expect(op.tags, `${method} ${path}`).toHaveLength(1);
      const isTransfer = (op.tags as string[])[0] === "transfer";
      expect(paths[path]?.servers !== undefined, path).toBe(isTransfer);
    }
  });

  it("declares exactly the path parameters of each template", () => {
    for (const { method, path, op } of operations()) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = ((op.parameters as JsonObject[] | undefined) ?? [])
        .filter((p) => p.in === "path")
        .map((p) => {
          expect(p.required, `${method} ${path} ${String(p.name)}`).toBe(true);
          return p.name;
        })
        .sort();
      expect(declared, `${method} ${path}`).toEqual(inTemplate);
    }
  });

  it("answers each route's error codes under their status, with a closed ErrorResponse", () => {
    for (const [name, route] of documentedRoutes) {
      const responses = paths[route.path]?.[route.method.toLowerCase()] as JsonObject;
      const answers = responses.responses as Record<string, JsonObject>;
      const expected = new Map<string, ErrorCode[]>();
      for (const code of route.errors) {
        const status = String(errorStatus(route, code));
        expected.set(status, [...(expected.get(status) ?? []), code]);
      }
      const errorStatuses = Object.keys(answers).filter((s) => Number(s) >= 400);
      const unhealthy = route.unhealthy ? ["503"] : [];
      expect(errorStatuses.sort(), name).toEqual([...expected.keys(), ...unhealthy].sort());
      for (const [status, codes] of expected) {
        const schema = (answers[status] as { content: Record<string, JsonObject> }).content[
          "application/json"
        ] as JsonObject;
        const variants = ((schema.schema as JsonObject).oneOf as JsonObject[]) ?? [schema.schema];
        const listed = variants.flatMap((variant) => {
          expect(variant.additionalProperties, `${name} ${status}`).toBe(false);
          const properties = variant.properties as Record<string, JsonObject>;
          expect(properties.name?.const).toBe(errorName(Number(status)));
          return properties.code?.enum as string[];
        });
        expect(listed.sort(), `${name} ${status}`).toEqual([...codes].sort());
        if (status === "429" || status === "507") {
          const headers = answers[status]?.headers as JsonObject;
          expect(deref(headers["Retry-After"]).required, `${name} ${status}`).toBe(true);
        }
      }
    }
  });

  it("closes every object of every request and answer to undeclared members", () => {
    const open = objectSchemas(doc, "#")
      .filter(([, schema]) => schema.additionalProperties !== false)
      .map(([at]) => at);
    expect(open).toEqual([]);
  });

  it("lists every error code with its meaning", () => {
    const listed = doc["x-error-codes"] as Array<{ code: string; meaning: string }>;
    expect(listed.map((entry) => entry.code)).toEqual(ERROR_CODES);
    for (const entry of listed) expect(entry.meaning, entry.code).toMatch(/\S/);
  });

  it("describes KT proofs as the server sends them: three kinds, depth and other", () => {
    const indexProof = schemas.IndexProof as JsonObject;
    expect(Object.keys(indexProof.properties as JsonObject).sort()).toEqual(
      ["bitmap", "depth", "other", "siblings"].sort(),
    );
    expect(indexProof.required).toEqual(["depth", "bitmap", "siblings"]);
    const ktProof = schemas.KtProof as { properties: Record<string, JsonObject> };
    const body = ktProof.properties.body as JsonObject;
    const kinds = (body.oneOf as JsonObject[]).map(deref).flatMap((kind) => {
      const type = (kind.properties as Record<string, JsonObject>).type as JsonObject;
      return (type.enum as string[] | undefined) ?? [type.const as string];
    });
    expect(kinds.sort()).toEqual(["absence", "inclusion", "tombstone"]);
    expect(JSON.stringify(doc)).not.toMatch(/keyed by SHA-256 of the address\)/);
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
const error = (code: ErrorCode, status = 404) => ({ name: errorName(status), code, message: "m" });

describe("createContractChecker", () => {
  const checker = createContractChecker();
  const address = "alice@example.org:dev.1";

  it("accepts documented responses", () => {
    checker.check("GET", `/v1/keys/bundle/${address}`, 200, json, bundle);
    checker.check("GET", `/v1/keys/bundle/${encodeURIComponent(address)}`, 200, json, bundle);
    const kemKey = Buffer.alloc(1568, 5).toString("base64");
    const kemPreKey = { keyId: 3, publicKey: kemKey, signature: sig, lastResort: false };
    checker.check("GET", `/v1/keys/bundle/${address}`, 200, json, { ...bundle, kemPreKey });
    expect(() =>
      checker.check("GET", `/v1/keys/bundle/${address}`, 200, json, {
        ...bundle,
        kemPreKey: { ...kemPreKey, lastResort: undefined },
      }),
    ).toThrow();
    checker.check("get", "/health", 200, json, { status: "ok", service: "svc-prekey-server" });
    checker.check("GET", "/health", 503, json, { status: "error", service: "svc-prekey-server" });
    checker.check("GET", "/v1/keys/count/bob?x=1", 200, json, { count: 0, kemCount: 0 });
    checker.check("GET", "http://localhost/v1/kt/sth/3", 404, json, error("SVC_STH_NOT_FOUND"));
    checker.check("GET", "/metrics", 200, new Headers({ "content-type": "text/plain" }), "x 1");
    checker.check(
      "POST",
      "/v1/keys/register",
      429,
      new Headers({ "content-type": "application/json", "retry-after": "3" }),
      error("SVC_RATE_LIMITED", 429),
    );
    checker.check("POST", "/v1/transfer/AAAAAAAAAAAAAAAAAAAAAA/chunk", 409, json, {
      ...error("SVC_REPLAY", 409),
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

  it("rejects an undeclared member", () => {
    expect(() =>
      checker.check("GET", "/v1/keys/bundle/a", 200, json, { ...bundle, futureMember: true }),
    ).toThrow(/must NOT have additional properties/);
    expect(() =>
      checker.check("GET", "/v1/keys/count/a", 400, json, {
        ...error("SVC_INVALID_ADDRESS", 400),
        detail: "x",
      }),
    ).toThrow(/must NOT have additional properties/);
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
      checker.check("GET", "/v1/keys/bundle/a", 200, json, { ...bundle, identityDHKey: 7 }),
    ).toThrow(/must be string/);
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
        error("SVC_REPLAY", 409),
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
      checker.check("POST", "/v1/inbox/a", 429, json, error("SVC_QUOTA_EXCEEDED", 429)),
    ).toThrow(/Retry-After/);
    const zero = new Headers({ "content-type": "application/json", "retry-after": "0" });
    expect(() =>
      checker.check("POST", "/v1/inbox/a", 429, zero, error("SVC_QUOTA_EXCEEDED", 429)),
    ).toThrow(/Retry-After/);
  });
});

describe("expectContract", () => {
  it("parses, checks and returns a JSON body", async () => {
    const res = Response.json({ count: 5, kemCount: 1 });
    await expect(expectContract(res, "GET", "/v1/keys/count/a")).resolves.toEqual({
      count: 5,
      kemCount: 1,
    });
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
