import { badRequest, parseSafeDecimal } from "@svc/protocol";

/** A tree size or leaf index from a path or query parameter; missing or malformed is a 400. */
export function treeSizeParam(value: string | undefined, name: string): number;
export function treeSizeParam(
  value: string | undefined,
  name: string,
  optional: true,
): number | undefined;
export function treeSizeParam(value: string | undefined, name: string, optional = false) {
  if (value === undefined) {
    if (optional) return undefined;
    throw badRequest(`${name} is required`);
  }
  return parseSafeDecimal(value, name);
}
