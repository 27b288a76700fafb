import { execFileSync, spawnSync } from "node:child_process";
import { envelope, InboxClient, inProcess, party, T0 } from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "./test-support/app.js";

const PROMTOOL = "promtool";

/** `promtool` runs here; in CI (CI or SVC_REQUIRE_PROMTOOL=1) its absence fails the test. */
function promtoolSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ci = env.CI;
  if (
    (ci !== undefined && ci !== "" && ci !== "0" && ci !== "false") ||
    env.SVC_REQUIRE_PROMTOOL === "1"
  ) {
    return undefined;
  }
  const found = spawnSync(PROMTOOL, ["--version"], { stdio: "ignore" });
  return found.error || found.status !== 0
    ? "promtool is not installed (apt-get install prometheus)"
    : undefined;
}

/** The /metrics page of a server that has served a register, a deposit and a fetch. */
async function metricsPage(): Promise<string> {
  const svc = await createTestApp({}, { now: () => T0 });
  const client = new InboxClient(inProcess(svc.app), () => T0);
  const alice = party("alice");
  await client.register("alice:1", alice);
  await client.deposit("alice:1", party("sender"), envelope(1));
  await client.fetch("alice:1", alice);
  const res = await svc.app.request("/metrics");
  expect(res.status).toBe(200);
  return res.text();
}

/** Each metric family's name and TYPE, and whether a HELP line names it. */
function families(page: string): { name: string; type: string; help: boolean }[] {
  const helped = new Set([...page.matchAll(/^# HELP (\S+) \S/gm)].map((m) => m[1]));
  return [...page.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => ({
    name: m[1] as string,
    type: m[2] as string,
    help: helped.has(m[1]),
  }));
}

describe("GET /metrics", () => {
  let page: string;
  beforeAll(async () => {
    page = await metricsPage();
  });

  it("names counters *_total and nothing else so, with help on every family", async () => {
    const found = families(page);
    expect(found.length).toBeGreaterThan(20);
    const misnamed = found.filter(
      ({ name, type }) => (type === "counter") !== name.endsWith("_total"),
    );
    expect(misnamed).toEqual([]);
    expect(found.filter(({ help }) => !help)).toEqual([]);
  });

  const skip = promtoolSkipReason();
  it.skipIf(skip !== undefined)(
    `passes promtool check metrics${skip ? ` (${skip})` : ""}`,
    async () => {
      let problems = "";
      try {
        execFileSync(PROMTOOL, ["check", "metrics"], {
          input: page,
          stdio: ["pipe", "pipe", "pipe"],
        });
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
        problems = `${stdout ?? ""}${stderr ?? ""}`.trim() || String(error);
      }
      expect(problems).toBe("");
    },
  );
});
