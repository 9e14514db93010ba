import { describe, expect, it } from "vitest";
import { AUDIT_PROBE_MS, DOCKER_POLL_MS, SERVER_STARTUP_WAIT_MS } from "./host-options.js";

describe("the host's start", () => {
  it("takes clients after 5 s at most, as docs/faults.md says", () => {
    expect(SERVER_STARTUP_WAIT_MS).toBe(5_000);
  });

  it("looks for Docker and tries a failed audit log again every few seconds", () => {
    expect({ DOCKER_POLL_MS, AUDIT_PROBE_MS }).toEqual({
      DOCKER_POLL_MS: 10_000,
      AUDIT_PROBE_MS: 5_000,
    });
  });
});
