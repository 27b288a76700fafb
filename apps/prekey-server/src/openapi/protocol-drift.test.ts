import { ERROR_CODES, ERROR_STATUS, ROUTES } from "@svc/protocol";
import type * as v from "valibot";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./document.js";

type Json = Record<string, unknown>;

/** What both descriptions must agree on: types, members, which are required, closed objects. */
interface Shape {
  type: string;
  nullable?: boolean;
  optional?: boolean;
  closed?: boolean;
  properties?: Record<string, Shape>;
  items?: Shape;
}

const document = openApiDocument();

/** The shape a valibot schema accepts. */
function fromValibot(schema: v.GenericSchema): Shape {
  const s = schema as unknown as Json & { type: string; pipe?: Json[] };
  switch (s.type) {
    case "optional":
      return { ...fromValibot(s.wrapped as v.GenericSchema), optional: true };
    case "nullable":
      return { ...fromValibot(s.wrapped as v.GenericSchema), nullable: true };
    case "object":
    case "strict_object":
    case "loose_object": {
      const entries = s.entries as Record<string, v.GenericSchema>;
      const properties = Object.fromEntries(
        Object.entries(entries).map(([name, entry]) => [name, fromValibot(entry)]),
      );
      return { type: "object", closed: s.type === "strict_object", properties };
    }
    case "array":
      return { type: "array", items: fromValibot(s.item as v.GenericSchema) };
    case "number": {
      const integer = s.pipe?.some((a) => a.type === "safe_integer" || a.type === "integer");
      return { type: integer ? "integer" : "number" };
    }
    case "picklist":
    case "literal":
      return { type: "string" };
    case "variant":
      return { type: "object" };
    default:
      return { type: s.type };
  }
}

/** The shape an OpenAPI schema accepts ($ref and allOf resolved). */
function fromOpenApi(schema: Json): Shape {
  const resolved = resolve(schema);
  if (Array.isArray(resolved.allOf)) return fromOpenApi(mergeAllOf(resolved.allOf as Json[]));
  const variants = (resolved.oneOf ?? resolved.anyOf) as Json[] | undefined;
  if (variants) {
    const shapes = variants.map(fromOpenApi);
    const nonNull = shapes.filter((shape) => shape.type !== "null");
    return nonNull.length === 1 && nonNull.length < shapes.length
      ? { ...(nonNull[0] as Shape), nullable: true }
      : { type: "object" };
  }
  let type = resolved.type as string | string[] | undefined;
  let nullable = false;
  if (Array.isArray(type)) {
    nullable = type.includes("null");
    type = type.find((t) => t !== "null");
  }
  const constType = resolved.const === undefined ? undefined : typeof resolved.const;
  const shape: Shape = { type: type ?? constType ?? (resolved.enum ? "string" : "object") };
  if (nullable) shape.nullable = true;
  if (shape.type === "array") shape.items = fromOpenApi(resolved.items as Json);
  if (shape.type === "object" && resolved.properties) {
    const required = new Set((resolved.required as string[] | undefined) ?? []);
    shape.closed = resolved.additionalProperties === false;
    shape.properties = Object.fromEntries(
      Object.entries(resolved.properties as Record<string, Json>).map(([name, property]) => {
        const member = fromOpenApi(property);
        return [name, required.has(name) ? member : { ...member, optional: true }];
      }),
    );
  }
  return shape;
}

/** One schema of the parts of an allOf: members merged (later parts refine), required joined. */
function mergeAllOf(parts: Json[]): Json {
  const merged: Json = { type: "object", properties: {}, required: [] };
  for (const part of parts.map(resolve)) {
    for (const [name, member] of Object.entries((part.properties as Record<string, Json>) ?? {})) {
      const properties = merged.properties as Record<string, Json>;
      properties[name] = { ...resolve(properties[name] ?? {}), ...resolve(member) };
    }
    merged.required = [...(merged.required as string[]), ...((part.required as string[]) ?? [])];
    if (part.additionalProperties === false || part.unevaluatedProperties === false) {
      merged.additionalProperties = false;
    }
  }
  return merged;
}

function resolve(schema: Json): Json {
  let current = schema;
  while (typeof current.$ref === "string") {
    const path = current.$ref.replace(/^#\//, "").split("/");
    current = path.reduce<Json>((node, key) => node[key] as Json, document);
  }
  return current;
}

/** Compares two shapes; returns the differences with the member path. */
function differences(ours: Shape, theirs: Shape, at: string, compareClosed: boolean): string[] {
  const found: string[] = [];
  const same = (name: string, a: unknown, b: unknown) => {
    if (a !== b)
      found.push(`${at}: ${name} is ${String(a)} in @svc/protocol, ${String(b)} in openapi.yaml`);
  };
  same("type", ours.type, theirs.type);
  same("nullable", Boolean(ours.nullable), Boolean(theirs.nullable));
  same("optional", Boolean(ours.optional), Boolean(theirs.optional));
  if (compareClosed && ours.type === "object" && theirs.properties) {
    same("closed", Boolean(ours.closed), Boolean(theirs.closed));
  }
  if (ours.items && theirs.items) {
    found.push(...differences(ours.items, theirs.items, `${at}[]`, compareClosed));
  }
  if (ours.properties && theirs.properties) {
    const names = new Set([...Object.keys(ours.properties), ...Object.keys(theirs.properties)]);
    for (const name of names) {
      const a = ours.properties[name];
      const b = theirs.properties[name];
      if (!a || !b) found.push(`${at}.${name}: only in ${a ? "@svc/protocol" : "openapi.yaml"}`);
      else found.push(...differences(a, b, `${at}.${name}`, compareClosed));
    }
  }
  return found;
}

function operation(method: string, path: string): Json {
  const item = (document.paths as Record<string, Json>)[path];
  const op = item?.[method.toLowerCase()] as Json | undefined;
  if (!op) throw new Error(`${method} ${path} is not in openapi.yaml`);
  return op;
}

function jsonSchemaOf(part: Json | undefined): Json | undefined {
  const content = (part ? resolve(part) : undefined)?.content as Record<string, Json> | undefined;
  return content?.["application/json"]?.schema as Json | undefined;
}

describe("@svc/protocol and the served openapi.yaml", () => {
  const routes = Object.entries(ROUTES) as Array<[string, (typeof ROUTES)[keyof typeof ROUTES]]>;

  it.each(routes)("%s: the request body matches", (_, route) => {
    const op = operation(route.method, route.path);
    const theirs = jsonSchemaOf(op.requestBody as Json | undefined);
    if (!("body" in route)) return expect(theirs).toBeUndefined();
    expect(theirs, "openapi.yaml documents no JSON body").toBeDefined();
    const found = differences(fromValibot(route.body), fromOpenApi(theirs as Json), "body", true);
    expect(found).toEqual([]);
  });

  it.each(routes)("%s: the 200 answer matches", (_, route) => {
    const op = operation(route.method, route.path);
    const theirs = jsonSchemaOf((op.responses as Record<string, Json>)["200"]);
    expect(theirs, "openapi.yaml documents no JSON answer").toBeDefined();
    const found = differences(
      fromValibot(route.response),
      fromOpenApi(theirs as Json),
      "200",
      false,
    );
    expect(found).toEqual([]);
  });

  it("has a ROUTES entry for every operation that answers JSON", () => {
    const contracted = new Set(routes.map(([, route]) => `${route.method} ${route.path}`));
    const operator = new Set(["GET /svc-observer/api/state"]);
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
        const key = `${method.toUpperCase()} ${path}`;
        const ok = (op.responses as Record<string, Json> | undefined)?.["200"];
        if (jsonSchemaOf(ok) && !contracted.has(key) && !operator.has(key)) missing.push(key);
      }
    }
    expect(missing).toEqual([]);
  });

  it("lists the same error codes", () => {
    const error = resolve({ $ref: "#/components/schemas/ErrorResponse" });
    const code = (error.properties as Record<string, Json>).code as Json;
    expect(new Set(code.enum as string[])).toEqual(new Set(ERROR_CODES));
  });

  it("documents each error code only under its status", () => {
    const statuses = new Set(Object.values(ERROR_STATUS).map(String));
    for (const item of Object.values(document.paths as Record<string, Json>)) {
      for (const op of Object.values(item) as Json[]) {
        for (const status of Object.keys((op.responses as Json | undefined) ?? {})) {
          if (status.startsWith("4") || status.startsWith("5")) expect(statuses).toContain(status);
        }
      }
    }
  });
});
