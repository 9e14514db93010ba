import { describe, expect, it } from "vitest";
import * as limits from "./limits.js";

// Each limit is a security or usability promise made in DESIGN.md and the README.
// Changing one must be a deliberate act that also changes this test.
describe("limits", () => {
  it("pins every limit to its documented value", () => {
    const KiB = 1024;
    const MiB = 1024 * KiB;
    expect({ ...limits }).toEqual({
      SANDBOX_LIMITS: {
        memoryBytes: 256 * MiB,
        memorySwapBytes: 256 * MiB,
        nanoCpus: 1e9,
        pids: 64,
        nofile: 64,
        tmpfsBytes: 16 * MiB,
        tmpfsOptions: "rw,noexec,nosuid,nodev",
        user: "65534:65534",
      },
      RUN_LIMITS: {
        defaultDeadlineSeconds: 90,
        minDeadlineSeconds: 1,
        maxDeadlineSeconds: 90,
        stdoutKeptBytes: 8 * KiB,
        stderrKeptBytes: 8 * KiB,
        outputStopBytes: 1 * MiB,
        errorTailLines: 20,
        errorMaxChars: 4 * KiB,
        stdinMaxBytes: 1 * MiB,
        codeMaxBytes: 256 * KiB,
      },
      PROTOCOL_LIMITS: {
        lineMaxBytes: 128 * KiB,
        outputChunkChars: 4 * KiB,
        maxPendingCalls: 256,
      },
      BRIDGE_LIMITS: {
        argsMaxBytes: 16 * KiB,
        defaultMaxCallsPerRun: 200,
        maxCallsPerRunCeiling: 10_000,
        callTimeoutMs: 30_000,
        resultMaxBytes: 64 * KiB,
        refusalMaxChars: 500,
        defaultServerConcurrency: 8,
      },
      CATALOG_LIMITS: {
        descriptionMaxBytes: 2 * KiB,
        stubTypeDepth: 5,
        paramNameMaxChars: 64,
        schemaMaxDepth: 32,
        defaultDescriptionBudgetChars: 12_000,
      },
      POOL_LIMITS: { defaultSize: 1, maxSize: 8 },
      SETTINGS_BOUNDS: {
        deadlineSeconds: { min: 1, max: 90, default: 90 },
        maxCallsPerRun: { min: 1, max: 10_000, default: 200 },
        descriptionBudgetChars: { min: 1_000, max: 100_000, default: 12_000 },
        warmPoolSize: { min: 0, max: 8, default: 1 },
        serverConcurrency: { min: 1, max: 64, default: 8 },
        maxConcurrentRuns: { min: 1, max: 16, default: 4 },
        auditRetentionDays: { min: 1, max: 3650, default: 30 },
        auditMaxFileMiB: { min: 1, max: 1024, default: 16 },
        httpPort: { min: 1024, max: 65_535, default: 7717 },
      },
      HOST_LIMITS: { runQueueTimeoutMs: 60_000, shimStartWaitMs: 10_000, clientNameMaxChars: 200 },
    });
  });
});
