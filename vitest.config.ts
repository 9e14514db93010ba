import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "electron/**/*.test.ts",
      "shared/**/*.test.ts",
      "e2e/**/*.test.ts",
      "test-servers/**/*.test.ts",
      "skills/**/*.test.ts",
      "renderer/src/**/*.test.mjs",
    ],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    // Docker-backed tests share one engine and 2 cores: run files one after another.
    fileParallelism: false,
    globalSetup: ["./e2e/global-setup.ts"],
  },
});
