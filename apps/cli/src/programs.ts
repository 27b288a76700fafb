import type { Program } from "./command-line.js";

export const SVC: Program = { name: "svc", tool: "svc" };

/**
 * The tools that svc transfer, svc kt and svc db were before they joined svc: as aliases they
 * print the same usage and the same lines, under their own names (docs/cli.md, "Aliases").
 */
export const ALIASES = {
  "svc-transfer": { name: "svc-transfer", tool: "svc-transfer" },
  "svc-kt": { name: "svc-kt", tool: "svc-kt" },
  "svc-db": { name: "svc-db", tool: "svc-db" },
} as const satisfies Record<string, Program>;

export type AliasName = keyof typeof ALIASES;
