import { describe, expect, it } from "vitest";
import { RateBucket, MESSAGES_PER_SECOND_MAX, MESSAGES_BURST_MAX } from "./rate-bucket.js";

describe("RateBucket", () => {
  it("takes the burst, then the refill rate, and no more", () => {
    let now = 0;
    const bucket = new RateBucket(() => now);
    for (let i = 0; i < MESSAGES_BURST_MAX; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    now = 1000;
    for (let i = 0; i < MESSAGES_PER_SECOND_MAX; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    now = 60_000;
    for (let i = 0; i < MESSAGES_BURST_MAX; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ MESSAGES_BURST_MAX, MESSAGES_PER_SECOND_MAX }).toEqual({
      MESSAGES_BURST_MAX: 5_000,
      MESSAGES_PER_SECOND_MAX: 2_000,
    });
  });
});
