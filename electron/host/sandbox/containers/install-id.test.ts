import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OpenHook } from "../../../../test-support/open-hook.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { ensureInstallId, INSTALL_ID_FILE, isInstallId, readInstallId } from "./install-id.js";

const reads = vi.hoisted(() => ({ afterFirst: null as (() => Promise<void>) | null }));
/** What another start does around this one's next open, or a handle whose write fails. */
const opens = vi.hoisted((): OpenHook => ({ next: null }));

// The other starter's write lands right after this process has read the file it created
// empty: the moment a concurrent first start can catch.
// open-hook.js is imported in the factory: it runs before this file's own imports are bound.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const { withOpenHook } = await import("../../../../test-support/open-hook.js");
  return {
    ...withOpenHook(actual, opens),
    readFile: async (...args: Parameters<typeof actual.readFile>) => {
      const text = await actual.readFile(...args);
      const hook = reads.afterFirst;
      reads.afterFirst = null;
      if (hook !== null) await hook();
      return text;
    },
  };
});

afterEach(() => {
  reads.afterFirst = null;
  opens.next = null;
  removeTempDirs();
});

const idFile = (dataDir: string): string => path.join(dataDir, INSTALL_ID_FILE);

describe("install id", () => {
  it("is made once, as random hex in a 0600 file, and read back after", async () => {
    const dataDir = path.join(tempDir("cm-id-"), "data");
    const id = await ensureInstallId(dataDir);
    expect(isInstallId(id)).toBe(true);
    expect((await stat(idFile(dataDir))).mode & 0o777).toBe(0o600);
    expect(await ensureInstallId(dataDir)).toBe(id);
    expect(await readInstallId(dataDir)).toBe(id);
  });

  it("is null before the first start", async () => {
    expect(await readInstallId(tempDir("cm-id-"))).toBeNull();
  });

  it("gives concurrent first starts the same id", async () => {
    const dataDir = tempDir("cm-id-");
    const ids = await Promise.all(Array.from({ length: 8 }, () => ensureInstallId(dataDir)));
    expect(new Set(ids).size).toBe(1);
    expect((await readFile(idFile(dataDir), "utf8")).trim()).toBe(ids[0]);
  });

  it("waits for a starter that has created the file but not yet written it", async () => {
    const dataDir = tempDir("cm-id-");
    const theirs = "0123456789abcdef0123456789abcdef";
    await writeFile(idFile(dataDir), "", { mode: 0o600 });
    reads.afterFirst = () => writeFile(idFile(dataDir), theirs + "\n");
    expect(await ensureInstallId(dataDir)).toBe(theirs);
    expect(reads.afterFirst).toBeNull();
  });

  it("makes the id itself when the start that made the file first failed and removed it", async () => {
    const dataDir = tempDir("cm-id-");
    opens.next = async (real) => {
      await writeFile(idFile(dataDir), "");
      try {
        return await real();
      } finally {
        await rm(idFile(dataDir));
      }
    };
    const id = await ensureInstallId(dataDir);
    expect(opens.next).toBeNull();
    expect((await readFile(idFile(dataDir), "utf8")).trim()).toBe(id);
  });

  it("leaves no empty file behind when its write fails", async () => {
    const dataDir = tempDir("cm-id-");
    const full = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    opens.next = async (real) => {
      const handle = await real();
      return Object.assign(Object.create(handle) as typeof handle, {
        writeFile: () => Promise.reject(full),
        close: () => handle.close(),
      });
    };
    await expect(ensureInstallId(dataDir)).rejects.toThrow("no space left on device");
    await expect(stat(idFile(dataDir))).rejects.toMatchObject({ code: "ENOENT" });
    // The next start makes it.
    expect(isInstallId(await ensureInstallId(dataDir))).toBe(true);
  });

  it("says a file that stays empty is empty, naming it, not that containers were left", async () => {
    const dataDir = tempDir("cm-id-");
    await writeFile(idFile(dataDir), "");
    const error = await ensureInstallId(dataDir).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      `${idFile(dataDir)} is empty; delete it and Code Mode makes a new one.`,
    );
  });

  it("never trusts an id made of anything else", async () => {
    const dataDir = tempDir("cm-id-");
    await mkdir(dataDir, { recursive: true });
    for (const text of ["not-hex", "0123456789ABCDEF0123456789ABCDEF", "0".repeat(31)]) {
      await writeFile(idFile(dataDir), text);
      await expect(readInstallId(dataDir)).rejects.toThrow(`${idFile(dataDir)} is damaged`);
    }
  });
});
