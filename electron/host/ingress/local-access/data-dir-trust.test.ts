import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATA_DIR_TRUSTED_ENTRIES } from "../../app/host-options.js";
import { checkDataDirTrust, DataDirTrustError } from "./data-dir-trust.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";

const uid = process.getuid?.() ?? 0;
const facts = { platform: "linux" as const, uid };
const PREFIX = "codemode-trust-unit-";

afterEach(removeTempDirs);

describe("checkDataDirTrust", () => {
  it("accepts the user's own directory under a sticky, world-writable parent (like /tmp)", async () => {
    const dir = tempDir(PREFIX);
    writeFileSync(path.join(dir, "servers.json"), "{}");
    await expect(checkDataDirTrust(dir, ["servers.json", "missing.json"], facts)).resolves.toBe(
      undefined,
    );
  });

  it("accepts a world-writable parent only when it is sticky", async () => {
    const parent = tempDir(PREFIX);
    const dir = path.join(parent, "home");
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(parent, 0o1777);
    await expect(checkDataDirTrust(dir, [], facts)).resolves.toBe(undefined);
    chmodSync(parent, 0o777);
    await expect(checkDataDirTrust(dir, [], facts)).rejects.toThrow(DataDirTrustError);
  });

  it("judges a symlinked data directory by where it leads", async () => {
    const target = tempDir(PREFIX);
    const links = tempDir(PREFIX);
    const link = path.join(links, "link");
    symlinkSync(target, link);
    chmodSync(target, 0o777);
    await expect(checkDataDirTrust(link, [], facts)).rejects.toThrow(
      `${target} (owner uid ${uid}, mode 0777)`,
    );
  });

  it("refuses a symbolic link in place of a file it reads", async () => {
    const dir = tempDir(PREFIX);
    const elsewhere = tempDir(PREFIX);
    writeFileSync(path.join(elsewhere, "servers.json"), "{}");
    symlinkSync(path.join(elsewhere, "servers.json"), path.join(dir, "servers.json"));
    await expect(checkDataDirTrust(dir, ["servers.json"], facts)).rejects.toThrow(
      "is a symbolic link",
    );
  });

  it("refuses the audit checkpoint, its key, or a set-aside checkpoint that others can write", async () => {
    for (const name of [
      "audit-checkpoint.json",
      "audit-checkpoint-key.bin",
      "audit-checkpoint.json.10-1700000000000.cut.json",
    ]) {
      const dir = tempDir(PREFIX);
      writeFileSync(path.join(dir, name), "{}");
      chmodSync(path.join(dir, name), 0o664);
      await expect(checkDataDirTrust(dir, DATA_DIR_TRUSTED_ENTRIES, facts)).rejects.toThrow(
        `chmod go-w '${path.join(dir, name)}'`,
      );
    }
  });

  it("refuses a folder in it that others can write", async () => {
    const dir = tempDir(PREFIX);
    mkdirSync(path.join(dir, "audit"));
    chmodSync(path.join(dir, "audit"), 0o775);
    await expect(checkDataDirTrust(dir, ["audit"], facts)).rejects.toThrow(
      `chmod go-w '${path.join(dir, "audit")}'`,
    );
  });

  it.skipIf(uid !== 0)(
    "names the owner when it is someone else, and quotes the fix for a shell",
    async () => {
      const parent = tempDir(PREFIX);
      const dir = path.join(parent, "it's mine");
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, 65_534, 65_534);
      const error = await checkDataDirTrust(dir, [], facts).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataDirTrustError);
      expect((error as DataDirTrustError).path).toBe(dir);
      expect((error as Error).message).toContain(`(owner uid 65534, mode 0700)`);
      expect((error as Error).message).toContain(`chown 0 '${parent}/it'\\''s mine'`);
    },
  );

  it("does not check where there are no uids (Windows uses ACLs)", async () => {
    const dir = tempDir(PREFIX);
    chmodSync(dir, 0o777);
    await expect(checkDataDirTrust(dir, [], { platform: "win32", uid: undefined })).resolves.toBe(
      undefined,
    );
  });
});
