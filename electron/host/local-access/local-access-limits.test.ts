import { describe, expect, it } from "vitest";
import {
  HANDSHAKE,
  LOCAL_ACCESS_LIMITS,
  LOCAL_ACCESS_MODES,
  LOCAL_ACCESS_NAMES,
  SHIM_EXIT,
  SHIM_NOT_RUNNING_CODE,
} from "./local-access-limits.js";

// Pins every number: changing one must be a decision, made here on purpose.
describe("local access limits", () => {
  it("pins every limit, mode and name", () => {
    expect(LOCAL_ACCESS_LIMITS).toEqual({
      socketPathMaxBytes: 100,
      dataDirHashChars: 12,
      tokenBytes: 32,
      handshakeMaxBytes: 200,
      handshakeTimeoutMs: 5_000,
      handshakeReplyMaxBytes: 200,
      socketProbeTimeoutMs: 1_000,
      emptyFileSettleMs: 1_000,
      shimRetryIntervalMs: 200,
      shimStartWaitMs: 10_000,
      shimFirstLineMaxBytes: 1024 * 1024,
      shimFirstLineWaitMs: 5_000,
    });
    expect(LOCAL_ACCESS_MODES).toEqual({
      socketDir: 0o700,
      socket: 0o600,
      tokenFile: 0o600,
      lockFile: 0o600,
      dataDir: 0o700,
    });
    expect(LOCAL_ACCESS_NAMES).toEqual({
      tokenFile: "token",
      lockFile: "host.lock",
      socketDir: "run",
      socketFile: "codemode.sock",
      prefix: "codemode",
    });
    expect(HANDSHAKE).toEqual({ hello: "CODEMODE", ok: "OK", err: "ERR" });
    expect(SHIM_EXIT).toEqual({ ok: 0, failed: 1, notRunning: 2 });
    expect(SHIM_NOT_RUNNING_CODE).toBe(-32000);
  });
});
