import * as v from "valibot";
import { ConfigError } from "./errors.js";

/** An `on`/`off` variable read as a boolean. */
export const onOff = (fallback: "on" | "off") =>
  v.pipe(
    v.optional(v.picklist(["on", "off"], "must be on or off"), fallback),
    v.transform((value) => value === "on"),
  );

/** A whole number in [min, max] written in decimal digits. */
export const wholeNumber = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.optional(v.pipe(v.string(), v.regex(/^\d+$/, "must be a whole number")), String(fallback)),
    v.transform(Number),
    v.number(),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

/**
 * Reads environment variables against `schema` (an empty value counts as unset); every bad value
 * is reported at once in one ConfigError.
 */
export function loadEnv<TSchema extends v.GenericSchema>(
  schema: TSchema,
  env: Record<string, string | undefined>,
): v.InferOutput<TSchema> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const result = v.safeParse(schema, present);
  if (!result.success) {
    throw new ConfigError(
      result.issues.map((issue) => `${v.getDotPath(issue) ?? "environment"}: ${issue.message}`),
    );
  }
  return result.output;
}

/**
 * How many reverse proxies in front of a server append to X-Forwarded-For: `off` (0, the
 * default), `on` (1) or a number.
 */
export const proxyCount = () =>
  v.pipe(
    v.optional(
      v.union(
        [v.picklist(["on", "off"]), v.pipe(v.string(), v.regex(/^\d+$/))],
        "must be off, on or a number of proxies",
      ),
      "off",
    ),
    v.transform((value) => (value === "off" ? 0 : value === "on" ? 1 : Number(value))),
  );
