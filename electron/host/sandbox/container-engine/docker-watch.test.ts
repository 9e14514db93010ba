import { describe, expect, it } from "vitest";
import { DOCKER_RECONNECT_FIRST_MS, DOCKER_RECONNECT_MAX_MS } from "./docker-watch.js";
import { isDockerUnreachable, reconnectDelayMs } from "./docker-watch.js";

describe("reconnecting to Docker", () => {
  it("backs off from DOCKER_RECONNECT_FIRST_MS, doubling, to DOCKER_RECONNECT_MAX_MS", () => {
    const [first, max] = [DOCKER_RECONNECT_FIRST_MS, DOCKER_RECONNECT_MAX_MS];
    const delays = Array.from({ length: 10 }, (_, i) => reconnectDelayMs(i, first, max));
    expect(delays.slice(0, 4)).toEqual([250, 500, 1_000, 2_000]);
    expect(delays.at(-1)).toBe(max);
    expect(reconnectDelayMs(10_000, first, max)).toBe(max);
  });

  it("tells an engine that is not there from one that answered with an error", () => {
    for (const code of ["ECONNREFUSED", "ENOENT", "ECONNRESET", "EPIPE"]) {
      expect(isDockerUnreachable(Object.assign(new Error("x"), { code }))).toBe(true);
    }
    expect(isDockerUnreachable(new Error("socket hang up"))).toBe(true);
    expect(
      isDockerUnreachable(Object.assign(new Error("no such image"), { statusCode: 404 })),
    ).toBe(false);
    expect(isDockerUnreachable("ENOENT")).toBe(false);
  });
});
