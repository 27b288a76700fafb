import { WitnessError, type WitnessOutcome } from "@svc/kt-witness";

/** How `svc kt witness` writes its lines: events on stdout, problems on stderr. */
export interface WitnessOutput {
  listening(url: string, verifierKey: string): string;
  outcome(outcome: WitnessOutcome): string;
  problem(kind: "warning" | "error", error: unknown): string;
}

export function witnessOutput(json: boolean, tool: string): WitnessOutput {
  return json ? jsonOutput : textOutput(tool);
}

/** `--json`: one JSON object per line, for scripts. */
const jsonOutput: WitnessOutput = {
  listening: (url, verifierKey) => JSON.stringify({ event: "listening", url, verifierKey }),
  outcome: (outcome) =>
    outcome.status === 200
      ? JSON.stringify({ event: "cosigned", origin: outcome.origin, size: outcome.size })
      : JSON.stringify({
          event: "refused",
          origin: ("origin" in outcome && outcome.origin) || null,
          status: outcome.status,
          message: outcome.message,
        }),
  problem: (kind, error) =>
    JSON.stringify({ event: kind, code: codeOf(error), message: (error as Error).message }),
};

/** The default: one sentence per line, for people; problems start with the tool's name. */
const textOutput = (tool: string): WitnessOutput => ({
  listening: (url, verifierKey) => `witness ${verifierKey} listening on ${url}`,
  outcome(outcome) {
    if (outcome.status === 200) return `cosigned ${outcome.origin} at size ${outcome.size}`;
    const origin = ("origin" in outcome && outcome.origin) || "a checkpoint";
    return `refused ${origin} (${outcome.status}): ${outcome.message}`;
  },
  problem: (kind, error) => `${tool}: ${kind}: ${codeOf(error)}: ${(error as Error).message}`,
});

function codeOf(error: unknown): string {
  if (error instanceof WitnessError) return error.code;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : "INTERNAL";
}
