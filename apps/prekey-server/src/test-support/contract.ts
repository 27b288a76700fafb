import type { ErrorObject, ValidateFunction } from "ajv";
import ajv2020Module from "ajv/dist/2020.js";
import { openApiDocument } from "../openapi/document.js";

/**
 * Contract checks of responses against `openapi.yaml`, for tests across the app:
 * `await expectContract(await app.request("/v1/kt/sth"), "GET", "/v1/kt/sth")`.
 */
export interface ContractChecker {
  /** Throws a readable Error when the response is not one the description documents. */
  check(method: string, path: string, status: number, headers: Headers, body: unknown): void;
}

const DOCUMENT_ID = "urn:svc:openapi";
// ajv is CommonJS: under NodeNext the default import is the module object; its `default` is the
// class both in Node (the class carries itself as `default`) and in bundlers.
const Ajv2020 = ajv2020Module.default;

type JsonObject = Record<string, unknown>;

interface PathTemplate {
  template: string;
  segments: Array<string | null>; // null marks a `{param}` segment
  item: JsonObject;
}

/** A checker over `document` (the served description unless given). */
export function createContractChecker(document: JsonObject = openApiDocument()): ContractChecker {
  const templates = pathTemplates(document);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();

  function validatorAt(pointer: string): ValidateFunction {
    const cached = validators.get(pointer);
    if (cached !== undefined) return cached;
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointerToFragment(pointer)}` });
    validators.set(pointer, validate);
    return validate;
  }

  return {
    check(method, path, status, headers, body) {
      const requestPath = pathOf(path);
      const where = `${method.toUpperCase()} ${requestPath} -> ${status}`;
      const fail = (reason: string): never => {
        throw new Error(`Contract violation: ${where}: ${reason}`);
      };

      const matches = templates.filter((t) => matchesTemplate(t.segments, requestPath));
      if (matches.length === 0) fail("path matches no documented path template");
      const verb = method.toLowerCase();
      const template = matches.find((t) => isObject(t.item[verb]));
      if (template === undefined) {
        const names = matches.map((t) => t.template).join(", ");
        return fail(`method ${method.toUpperCase()} is not documented for ${names}`);
      }
      const operationPointer = `/paths/${escapePointer(template.template)}/${verb}`;
      const operation = template.item[verb] as JsonObject;
      const responses = isObject(operation.responses) ? operation.responses : {};
      const statusKey = [String(status), `${String(status)[0]}XX`, "default"].find(
        (key) => responses[key] !== undefined,
      );
      if (statusKey === undefined) {
        const documented = Object.keys(responses).join(", ");
        return fail(`status ${status} is not documented for ${template.template} (${documented})`);
      }
      const response = resolve(document, `${operationPointer}/responses/${statusKey}`);

      checkHeaders(response, status, headers, validatorAt, fail);
      checkContent(response, headers, body, validatorAt, fail);
    },
  };
}

let sharedChecker: ContractChecker | undefined;

/**
 * Reads the body of `res` (JSON when the Content-Type says JSON, text otherwise; an event stream
 * is left unread), checks the response against the description and returns the parsed body.
 */
export async function expectContract(
  res: Response,
  method: string,
  path: string,
  checker: ContractChecker = defaultChecker(),
): Promise<unknown> {
  const essence = mediaTypeEssence(res.headers.get("content-type"));
  let body: unknown;
  if (essence !== "text/event-stream") {
    const text = await res.text();
    if (essence !== undefined && isJsonMediaType(essence)) {
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        throw new Error(
          `Contract violation: ${method.toUpperCase()} ${pathOf(path)} -> ${res.status}: ` +
            `body is not JSON: ${text.slice(0, 200)}`,
        );
      }
    } else {
      body = text;
    }
  }
  checker.check(method, path, res.status, res.headers, body);
  return body;
}

function defaultChecker(): ContractChecker {
  sharedChecker ??= createContractChecker();
  return sharedChecker;
}

// ------------------------------------------------------------------ response parts

type Fail = (reason: string) => never;
type ValidatorAt = (pointer: string) => ValidateFunction;

interface Resolved {
  document: JsonObject;
  value: JsonObject;
  pointer: string;
}

function checkHeaders(
  response: Resolved,
  status: number,
  headers: Headers,
  validatorAt: ValidatorAt,
  fail: Fail,
): void {
  const documented = isObject(response.value.headers) ? response.value.headers : {};
  for (const name of Object.keys(documented)) {
    const header = resolve(response.document, `${response.pointer}/headers/${escapePointer(name)}`);
    const value = headers.get(name);
    const required =
      header.value.required === true || (status === 429 && /^retry-after$/i.test(name));
    if (value === null) {
      if (required) fail(`required header ${name} is missing`);
      continue;
    }
    if (!isObject(header.value.schema)) continue;
    const schema = header.value.schema;
    const numeric = schema.type === "integer" || schema.type === "number";
    if (numeric && !/^-?\d+(\.\d+)?$/.test(value.trim())) {
      fail(`header ${name} is not a number: "${value}"`);
    }
    const validate = validatorAt(`${header.pointer}/schema`);
    if (!validate(numeric ? Number(value) : value)) {
      fail(`header ${name} "${value}" ${formatErrors(validate.errors)}`);
    }
  }
}

function checkContent(
  response: Resolved,
  headers: Headers,
  body: unknown,
  validatorAt: ValidatorAt,
  fail: Fail,
): void {
  const content = isObject(response.value.content) ? response.value.content : {};
  const mediaTypes = Object.keys(content);
  if (mediaTypes.length === 0) return;
  const essence = mediaTypeEssence(headers.get("content-type"));
  if (essence === undefined) {
    fail(`Content-Type is missing; documented: ${mediaTypes.join(", ")}`);
    return;
  }
  const mediaType = mediaTypes.find((m) => mediaTypeMatches(m, essence));
  if (mediaType === undefined) {
    fail(`Content-Type ${essence} is not documented (${mediaTypes.join(", ")})`);
    return;
  }
  const media = content[mediaType];
  if (!isJsonMediaType(essence) || !isObject(media) || media.schema === undefined) return;
  const validate = validatorAt(`${response.pointer}/content/${escapePointer(mediaType)}/schema`);
  if (!validate(body)) {
    fail(
      `body does not match the schema: ${formatErrors(validate.errors)}; body: ${preview(body)}`,
    );
  }
}

// ------------------------------------------------------------------ paths and pointers

function pathTemplates(document: JsonObject): PathTemplate[] {
  const paths = isObject(document.paths) ? document.paths : {};
  const templates: PathTemplate[] = [];
  for (const [template, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const segments = template
      .split("/")
      .map((segment) => (/^\{[^}]+\}$/.test(segment) ? null : segment));
    templates.push({ template, segments, item });
  }
  // Most specific first: at the first segment where two templates differ in kind, the literal
  // wins (`/v1/inbox/register` before `/v1/inbox/{address}`), as OpenAPI prescribes.
  return templates.sort((a, b) => specificity(a.segments, b.segments));
}

function specificity(a: Array<string | null>, b: Array<string | null>): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const aLiteral = a[i] !== null;
    const bLiteral = b[i] !== null;
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

function matchesTemplate(segments: Array<string | null>, path: string): boolean {
  const parts = path.split("/");
  if (parts.length !== segments.length) return false;
  return segments.every((segment, i) => {
    const part = parts[i] ?? "";
    return segment === null ? part.length > 0 : segment === part;
  });
}

/** The path of a request path or URL, without query string or fragment. */
function pathOf(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return new URL(path).pathname;
  return path.replace(/[?#].*$/s, "");
}

function resolve(document: JsonObject, pointer: string, seen: string[] = []): Resolved {
  if (seen.includes(pointer)) throw new Error(`openapi.yaml: $ref cycle at ${pointer}`);
  const value = valueAt(document, pointer);
  if (!isObject(value)) throw new Error(`openapi.yaml: nothing at ${pointer}`);
  const ref = value.$ref;
  if (typeof ref === "string") {
    if (!ref.startsWith("#")) throw new Error(`openapi.yaml: external $ref ${ref} at ${pointer}`);
    return resolve(document, decodeURIComponent(ref.slice(1)), [...seen, pointer]);
  }
  return { value, pointer, document };
}

function valueAt(document: JsonObject, pointer: string): unknown {
  let value: unknown = document;
  for (const token of pointer.split("/").slice(1)) {
    if (!isObject(value) && !Array.isArray(value)) return undefined;
    value = (value as JsonObject)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return value;
}

function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function pointerToFragment(pointer: string): string {
  return pointer.split("/").map(encodeURIComponent).join("/");
}

// ------------------------------------------------------------------ small helpers

function mediaTypeEssence(contentType: string | null): string | undefined {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  return essence === "" ? undefined : essence;
}

function mediaTypeMatches(documented: string, essence: string): boolean {
  const pattern = documented.toLowerCase();
  if (pattern === essence || pattern === "*/*") return true;
  return pattern.endsWith("/*") && essence.startsWith(pattern.slice(0, -1));
}

function isJsonMediaType(essence: string): boolean {
  return essence === "application/json" || essence.endsWith("+json");
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return "is invalid";
  const lines = errors.slice(0, 8).map((e) => {
    const at = e.instancePath === "" ? "(body)" : e.instancePath;
    const detail = e.keyword === "enum" ? ` ${JSON.stringify(e.params)}` : "";
    return `${at} ${e.message ?? e.keyword}${detail}`;
  });
  if (errors.length > 8) lines.push(`... ${errors.length - 8} more`);
  return lines.join("; ");
}

function preview(body: unknown): string {
  const text = JSON.stringify(body) ?? String(body);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}
