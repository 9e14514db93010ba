// The token file's first start racing another that fails: run around a real open() through a
// vi.mock of node:fs/promises (this file therefore runs isolated, as project unit-mocks).
import { readFile, rm, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { ensureToken, isToken, tokenPath } from "./token.js";

type Open = typeof import("node:fs/promises").open;
/** Runs the next open in its place: what another start did around it. */
const opens = vi.hoisted(() => ({
  next: null as ((real: () => ReturnType<Open>) => ReturnType<Open>) | null,
}));

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...actual,
    open: (...args: Parameters<Open>) => {
      const hook = opens.next;
      opens.next = null;
      return hook !== null ? hook(() => actual.open(...args)) : actual.open(...args);
    },
  };
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
