import { describe, expect, it } from "vitest";
import {
  BRIDGE_LIMITS,
  HOST_LIMITS,
  IMAGE_LIMITS,
  PROTOCOL_LIMITS,
  RUN_COST_LIMITS,
  RUN_LIMITS,
  SANDBOX_LIMITS,
  SETTINGS_BOUNDS,
} from "./limits.js";

// The limits users rely on, as docs/security.md and the design state them: changing one must
// be a deliberate act that also changes this test. The other limits are pinned beside the
// modules that use them.
const KiB = 1024;
const MiB = 1024 * KiB;

describe("limits", () => {
  it("keeps a run's container to 256 MiB, 1 CPU, 64 pids and 64 files, as user 65534", () => {
    expect(SANDBOX_LIMITS).toEqual({
      memoryBytes: 256 * MiB,
      memorySwapBytes: 256 * MiB,
      nanoCpus: 1e9,
      pids: 64,
      nofile: 64,
      tmpfsBytes: 16 * MiB,
      tmpfsOptions: "rw,noexec,nosuid,nodev",
      user: "65534:65534",
    });
  });

  it("ends a run at 50 s by default, 90 s at most", () => {
    expect(RUN_LIMITS).toMatchObject({
      defaultDeadlineSeconds: 50,
      minDeadlineSeconds: 1,
      maxDeadlineSeconds: 90,
    });
    expect(SETTINGS_BOUNDS.deadlineSeconds).toEqual({ min: 1, max: 90, default: 50 });
  });

  it("checks every call: 16 KiB of arguments, 200 calls a run, 30 s, 64 KiB of result", () => {
    expect(BRIDGE_LIMITS).toMatchObject({
      argsMaxBytes: 16 * KiB,
      defaultMaxCallsPerRun: 200,
      maxCallsPerRunCeiling: 10_000,
      callTimeoutMs: 30_000,
      resultMaxBytes: 64 * KiB,
      refusalMaxChars: 500,
    });
  });

  it("bounds what the sandbox can send the host", () => {
    expect(PROTOCOL_LIMITS.lineMaxBytes).toBe(128 * KiB);
    expect(IMAGE_LIMITS).toMatchObject({ perRun: 4, maxBytes: 1 * MiB, totalBytesPerRun: 2 * MiB });
    expect(RUN_COST_LIMITS.auditBytesPerRun).toBe(8 * MiB);
  });

  it("ends a run at the default deadline before SDK clients stop waiting by default", () => {
    // A run also waits for its container to start: it needs room under the client's timeout.
    expect(RUN_LIMITS.defaultDeadlineSeconds).toBe(SETTINGS_BOUNDS.deadlineSeconds.default);
    expect(RUN_LIMITS.defaultDeadlineSeconds).toBeLessThanOrEqual(
      HOST_LIMITS.clientDefaultTimeoutSeconds - 10,
    );
    // A client resetting its timeout on progress hears from the run well before it expires.
    expect(HOST_LIMITS.runProgressIntervalMs).toBeLessThan(
      (HOST_LIMITS.clientDefaultTimeoutSeconds * 1000) / 4,
    );
  });
});
