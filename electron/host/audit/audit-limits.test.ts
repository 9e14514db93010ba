import { expect, it } from "vitest";
import { AUDIT_LIMITS } from "./audit-limits.js";

it("pins every audit limit", () => {
  expect(AUDIT_LIMITS).toEqual({
    codeMaxBytes: 16 * 1024,
    errorMaxBytes: 2 * 1024,
    argsMaxBytes: 2 * 1024,
    textMaxBytes: 2 * 1024,
    argsMaxDepth: 64,
    defaultMaxFileBytes: 16 * 1024 * 1024,
    defaultRetentionDays: 30,
    batchMaxBytes: 1024 * 1024,
    clockSkewMs: 60_000,
    queryDefaultLimit: 100,
    queryMaxLimit: 1000,
    readChunkBytes: 256 * 1024,
  });
});
