import type { KtMonitorEvent, KtVerifyError } from "@svc/kt-verify";

/** How the CLI writes a monitor event (stdout) and a warning or error (stderr). */
export interface Output {
  event(event: KtMonitorEvent): string;
  problem(kind: "warning" | "error", error: KtVerifyError): string;
}

/** `--json`: one JSON object per line, for scripts. */
export const jsonOutput: Output = {
  event: (event) => JSON.stringify(event),
  problem: (kind, error) =>
    JSON.stringify({ event: kind, code: error.code, message: error.message }),
};

/** The default: one sentence per line, for people; problems start with the tool's name. */
export const textOutput = (tool: string): Output => ({
  event(event) {
    if (event.event === "sth") {
      return `verified tree head: size ${event.treeSize}, signed ${time(event.timestampMs)}, root ${event.rootHash}, index root ${event.indexRoot}`;
    }
    const where = `at leaf ${event.leafIndex}, ${time(event.timestampMs)}`;
    if (event.kind === "tombstone") return `${event.address}: deleted ${where}`;
    if (event.previousLeafIndex !== undefined) {
      return `${event.address}: identity updated ${where}, after leaf ${event.previousLeafIndex} (a v2 leaf: a new commitment, as when its last-resort KEM key is set or replaced; see the bundle)`;
    }
    return event.identitySigningKey === undefined
      ? `${event.address}: new identity ${where} (a v2 leaf: it commits to the keys, see the bundle)`
      : `${event.address}: new identity ${where}: signing key ${event.identitySigningKey}, DH key ${event.identityDHKey}`;
  },
  problem: (kind, error) => `${tool}: ${kind}: ${error.code}: ${error.message}`,
});

/** ISO 8601 when the log's timestamp is a representable date. */
function time(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms} ms` : date.toISOString();
}
