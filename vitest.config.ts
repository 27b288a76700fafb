import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "tooling/*", "examples/*", "bench"],
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
  },
});
