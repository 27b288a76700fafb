import type { PresenceChange } from "./types.js";

/** A PresenceChange from a NOTIFY payload, or undefined when the payload is not one. */
export function parsePresenceChange(payload: string): PresenceChange | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { address, online, at } = value as Record<string, unknown>;
  if (typeof address !== "string" || typeof online !== "boolean") return undefined;
  if (typeof at !== "number" || !Number.isSafeInteger(at)) return undefined;
  return { address, online, at };
}
