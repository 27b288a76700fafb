import { readFileSync } from "node:fs";
import { parse } from "yaml";

/**
 * The interface description (`openapi.yaml` at the package root), read and parsed once.
 * `../../openapi.yaml` is the package root both from `src/openapi/` and from `dist/openapi/`.
 */
const documentUrl = new URL("../../openapi.yaml", import.meta.url);

let text: string | undefined;
let document: Record<string, unknown> | undefined;

/** The raw YAML, as served at `/openapi.yaml`. */
export function openApiText(): string {
  text ??= readFileSync(documentUrl, "utf8");
  return text;
}

/** The parsed document. Shared: callers must not mutate it. */
export function openApiDocument(): Record<string, unknown> {
  if (document === undefined) {
    const parsed: unknown = parse(openApiText());
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new TypeError(`openapi.yaml at ${documentUrl.pathname} is not a YAML mapping`);
    }
    document = parsed as Record<string, unknown>;
  }
  return document;
}
