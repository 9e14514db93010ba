import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../../../test-support/temp-dir.js";
import { createOnce } from "./create-once.js";

afterEach(removeTempDirs);

describe("createOnce", () => {
  it("makes the file with its content and mode, once", async () => {
    const file = path.join(tempDir("cm-once-"), "f");
    expect(await createOnce(file, "first\n", 0o600)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await createOnce(file, "second\n", 0o600)).toBe(false);
    expect(await readFile(file, "utf8")).toBe("first\n");
  });

  it("leaves a file another process made as it is, empty or not", async () => {
    const file = path.join(tempDir("cm-once-"), "f");
    await writeFile(file, "");
    expect(await createOnce(file, "mine\n", 0o600)).toBe(false);
    expect(await readFile(file, "utf8")).toBe("");
  });

  it("passes on any other error, naming the path", async () => {
    const file = path.join(tempDir("cm-once-"), "no-such-dir", "f");
    await expect(createOnce(file, "x", 0o600)).rejects.toThrow(file);
  });
});
