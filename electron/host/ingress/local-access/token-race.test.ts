// The token file's first start racing another that fails: run around a real open() through a
// vi.mock of node:fs/promises (this file therefore runs isolated, as project unit-mocks).
import { readFile, rm, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OpenHook } from "../../../../test-support/open-hook.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { ensureToken, isToken, tokenPath } from "./token.js";

/** What another start does around this one's next open. */
const opens = vi.hoisted((): OpenHook => ({ next: null }));

// Imported in the factory: it runs before this file's own imports are bound.
vi.mock("node:fs/promises", async (importOriginal) => {
  const { withOpenHook } = await import("../../../../test-support/open-hook.js");
  return withOpenHook(await importOriginal<typeof import("node:fs/promises")>(), opens);
});

afterEach(() => {
  opens.next = null;
  removeTempDirs();
});

describe("token, first start against another that fails", () => {
  it("makes the token itself when the start that made the file removed it again", async () => {
    const dataDir = tempDir("cm-la-");
    opens.next = async (real) => {
      await writeFile(tokenPath(dataDir), "", { mode: 0o600 });
      try {
        return await real();
      } finally {
        await rm(tokenPath(dataDir));
      }
    };
    const token = await ensureToken(dataDir);
    expect(opens.next).toBeNull();
    expect(isToken(token)).toBe(true);
    expect((await readFile(tokenPath(dataDir), "utf8")).trim()).toBe(token);
  });
});
