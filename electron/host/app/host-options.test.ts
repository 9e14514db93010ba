import { describe, expect, it } from "vitest";
import {
  AUDIT_PROBE_MS,
  DOCKER_POLL_MS,
  SERVER_STARTUP_WAIT_MS,
  STARTUP_MIN_WAIT_MS,
  startupWaitLeft,
} from "./host-options.js";
import { SHIM_START_WAIT_MS } from "../shim/shim.js";
import { LOGIN_SHELL_TIMEOUT_MS } from "../servers/server-path.js";

describe("the host's start", () => {
  it("takes clients after 5 s at most, as docs/faults.md says", () => {
    expect(SERVER_STARTUP_WAIT_MS).toBe(5_000);
    expect(STARTUP_MIN_WAIT_MS).toBe(1_000);
  });

  it("counts the wait from the start, the login shell's time included, leaving 1 s at least", () => {
    expect(startupWaitLeft(100, 1_100)).toBe(4_000);
    expect(startupWaitLeft(0, 4_500)).toBe(1_000);
    expect(startupWaitLeft(0, LOGIN_SHELL_TIMEOUT_MS + 50)).toBe(1_000);
    // A shim that starts the app waits for it: the shell's timeout and the least wait after
    // it leave it time to boot and listen.
    expect(LOGIN_SHELL_TIMEOUT_MS + STARTUP_MIN_WAIT_MS).toBeLessThan(SHIM_START_WAIT_MS - 2_000);
  });

  it("looks for Docker and tries a failed audit log again every few seconds", () => {
    expect({ DOCKER_POLL_MS, AUDIT_PROBE_MS }).toEqual({
      DOCKER_POLL_MS: 10_000,
      AUDIT_PROBE_MS: 5_000,
    });
  });
});
