import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { memoryIO } from "../../../../test-support/cli-io.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { run } from "../run.js";

const TOKEN = "ab".repeat(32);

afterAll(() => removeTempDirs());

describe("codemode token header", () => {
  it("prints the header a client's headers helper gives, from the token file", async () => {
    const home = tempDir("codemode-token-");
    writeFileSync(path.join(home, "token"), `${TOKEN}\n`, { mode: 0o600 });
    const m = memoryIO({ CODEMODE_HOME: home });
    expect(await run(["token", "header"], m.io)).toBe(0);
    expect(JSON.parse(m.out())).toEqual({ Authorization: `Bearer ${TOKEN}` });
  });

  it("refuses a token file other users can read, in one line", async () => {
    const home = tempDir("codemode-token-");
    writeFileSync(path.join(home, "token"), TOKEN);
    chmodSync(path.join(home, "token"), 0o644);
    const m = memoryIO({ CODEMODE_HOME: home });
    expect(await run(["token", "header"], m.io)).toBe(1);
    expect(m.out()).toBe("");
    expect(m.err()).toMatch(/^codemode token: The token file .* can be read by other users/);
  });

  it("says there is no token yet, and gives its usage for anything else", async () => {
    const m = memoryIO({ CODEMODE_HOME: tempDir("codemode-token-") });
    expect(await run(["token", "header"], m.io)).toBe(1);
    expect(m.err()).toContain("There is no token file");
    const other = memoryIO();
    expect(await run(["token", "show"], other.io)).toBe(2);
    expect(other.err()).toContain("Usage: codemode token header");
  });
});
