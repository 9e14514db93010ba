import { describe, expect, it } from "vitest";
import { HOST_LIMITS } from "../../../shared/limits.js";
import { RefusalLimiter } from "./refusal-limiter.js";

describe("RefusalLimiter", () => {
  const refused = { kind: "auth_refused", reason: "wrong token", transport: "socket" } as const;

  it("admits up to the limit a minute, then counts the rest into the next admitted entry", () => {
    let now = 1_000_000;
    const limiter = new RefusalLimiter(() => now);
    const admitted = Array.from({ length: HOST_LIMITS.authRefusalsPerMinute + 3 }, () =>
      limiter.admit(refused),
    );
    expect(admitted.filter((e) => e !== null)).toHaveLength(HOST_LIMITS.authRefusalsPerMinute);
    expect(admitted.at(-1)).toBeNull();

    now += 60_001;
    expect(limiter.admit(refused)?.reason).toBe(
      "wrong token (and 3 more refused before, not logged one by one)",
    );
    expect(limiter.admit(refused)?.reason).toBe("wrong token");
  });
});
