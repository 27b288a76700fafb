import { stringify } from "yaml";
import { generateOpenApi } from "./generate.js";

let document: Record<string, unknown> | undefined;
let text: string | undefined;

/** The OpenAPI document generated from @svc/protocol's ROUTES. Shared: callers must not mutate it. */
export function openApiDocument(): Record<string, unknown> {
  document ??= generateOpenApi();
  return document;
}

/** The document as YAML, as served at `/openapi.yaml` and written to `dist/openapi.yaml`. */
export function openApiText(): string {
  text ??= stringify(openApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false });
  return text;
}
