import { describe, expect, it } from "vitest";
import {
  HANDSHAKE,
  LOCAL_ACCESS_NAMES,
  SHIM_EXIT,
  SHIM_NOT_RUNNING_CODE,
} from "./local-access-constants.js";

// Pins every name and wire value: changing one must be a decision, made here on purpose.
// The limits of local access users rely on are pinned beside the modules that use them.
describe("local access constants", () => {
  it("pins every name and wire value", () => {
    expect(LOCAL_ACCESS_NAMES).toEqual({
      tokenFile: "token",
      lockFile: "host.lock",
      socketDir: "run",
      socketFile: "codemode.sock",
      prefix: "codemode",
    });
    expect(HANDSHAKE).toEqual({
      version: "CODEMODE/2",
      hello: "HELLO",
      proof: "PROOF",
      ok: "OK",
      err: "ERR",
      uiLink: "UI-LINK",
      link: "LINK",
      legacyHello: "CODEMODE",
    });
    expect(SHIM_EXIT).toEqual({ ok: 0, failed: 1, notRunning: 2 });
    expect(SHIM_NOT_RUNNING_CODE).toBe(-32000);
  });
});
