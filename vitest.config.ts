import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "tooling/*", "examples/*"],
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
  },
});
