import { openStorage } from "@svc/db";
import { hasTestPostgres } from "@svc/db/testing";
import { loadConfig, migrations, startServer } from "@svc/prekey-server";
import { describe, expect, it } from "vitest";
import { type ConfigurationResult, runConfiguration } from "./configuration.js";
import type { StartInstance } from "./deployment.js";
import { invariantLines, peakRows, routeRows, verdict } from "./report.js";

/**
 * The servers run in this process (the bench forks one per instance from its build; a test runs
 * the sources): a few seconds at a low rate are what this test asks of them.
 */
const inProcess: StartInstance = async (env) => {
  const storage = env.DATABASE_URL ? undefined : await openStorage({ migrations });
  const config = loadConfig({ ...env, SVC_PORT: "0", SVC_HOST: "127.0.0.1" });
  const server = await startServer(config, storage ? { storage } : {});
  return {
    url: server.url,
    async stop() {
      await server.stop();
      await storage?.close();
    },
  };
};

const SMALL = {
  seed: 5,
  users: 24,
  ramp: { from: 4, max: 4, seconds: 1 },
  share: 0.7,
  rate: 40,
  seconds: 3,
  maxOps: 2000,
  maxInFlight: 64,
  drainMs: 10_000,
  start: inProcess,
};

/** Nothing violated and no 5xx in any phase; and the run did exercise every part of the mix. */
function expectClean(result: ConfigurationResult): void {
  expect(result.invariants.filter((invariant) => !invariant.passed)).toEqual([]);
  for (const [phase, routes] of result.recorder.routes) {
    for (const [route, stats] of routes) {
      expect({ phase, route, serverErrors: stats.serverErrors }).toEqual({
        phase,
        route,
        serverErrors: 0,
      });
    }
  }
  const measured = result.recorder.routes.get("measured");
  expect(measured?.get("deposit")?.count).toBeGreaterThan(20);
  expect(measured?.get("bundle fetch")?.count).toBeGreaterThan(5);
  expect(result.recorder.prekeysHandedOut.size).toBeGreaterThan(5);
  expect(result.recorder.bundleProofs.length).toBeGreaterThan(5);
  expect(result.recorder.acknowledgedByRecipient.size).toBeGreaterThan(20);
  expect(result.undelivered).toBe(0);
}

describe("the load test, a few seconds at a low rate", () => {
  it.skipIf(hasTestPostgres())("one instance (PGlite)", async () => {
    const result = await runConfiguration({ ...SMALL, name: "1 instance", instances: 1 });
    expectClean(result);
    expect(peakRows([result]).map((row) => row.name)).toContain(
      `1 instance (${result.database}): measured, open loop`,
    );
    expect(routeRows([result]).length).toBeGreaterThan(8);
    expect(invariantLines(result).filter((line) => line.includes("pass"))).toHaveLength(3);
    expect(verdict([result], 0.7)).toContain("not judged");
  });

  it.runIf(hasTestPostgres())("one instance and two on one PostgreSQL, side by side", async () => {
    const one = await runConfiguration({
      ...SMALL,
      name: "1 instance",
      instances: 1,
      postgresUrl: process.env.TEST_DATABASE_URL,
    });
    const two = await runConfiguration({
      ...SMALL,
      name: "2 instances",
      instances: 2,
      postgresUrl: process.env.TEST_DATABASE_URL,
    });
    expectClean(one);
    expectClean(two);
    const rows = routeRows([one, two]);
    expect(rows.find((row) => row.name === "2 instances: deposit")?.baseline).toBe(
      "1 instance: deposit",
    );
    expect(verdict([one, two], 0.7)).toMatch(/: met$/);
  });
});
