import { describe, expect, it } from "vitest";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { RateBucket } from "./rate-bucket.js";

describe("RateBucket", () => {
  it("takes the burst, then the refill rate, and no more", () => {
    let now = 0;
    const bucket = new RateBucket(() => now);
    for (let i = 0; i < SERVER_LIMITS.messagesBurstMax; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    now = 1000;
    for (let i = 0; i < SERVER_LIMITS.messagesPerSecondMax; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    now = 60_000;
    for (let i = 0; i < SERVER_LIMITS.messagesBurstMax; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });
});
