import { defineConfig } from "vitest/config";

// Three projects, so a reader (and `npm run test:unit`) can tell what a test needs:
// - unit: beside its module (`*.test.ts`); no Docker engine and no built `dist/`.
// - docker: beside its module too (`*.docker.test.ts`); a real engine and the sandbox image.
// - e2e: `e2e/`; the built CLI, daemon, shim or UI as real processes, most with Docker.
// `npm test` runs all three, one group after another.
const DOCKER = "**/*.docker.test.ts";

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [
            "electron/**/*.test.ts",
            "shared/**/*.test.ts",
            "test-servers/**/*.test.ts",
            "skills/**/*.test.ts",
            "renderer/src/**/*.test.mjs",
          ],
          exclude: [DOCKER, "**/node_modules/**"],
          globalSetup: ["./test-support/unit-setup.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "docker",
          include: [DOCKER],
          exclude: ["**/node_modules/**"],
          // Docker-backed tests share one engine and 2 cores: run files one after another.
          fileParallelism: false,
          globalSetup: ["./e2e/global-setup.ts"],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["e2e/**/*.test.ts"],
          exclude: [DOCKER, "**/node_modules/**"],
          fileParallelism: false,
          globalSetup: ["./e2e/global-setup.ts"],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
