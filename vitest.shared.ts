import { defineProject } from "vitest/config";

/** Workspace packages resolve to their TypeScript sources (the "source" export condition). */
const conditions = ["source", "module", "node", "development|production"];

export function svcProject(name: string, options: { testTimeout?: number } = {}) {
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ["source"] } },
    test: {
      name,
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 20_000,
      hookTimeout: 60_000,
    },
  });
}
