// Hostile zips, unpacked for real into a temporary folder: each must be refused with its
// reason and leave nothing behind, inside the target or outside it.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildZip } from "../../../../test-support/zip-builder.js";
import { BundleError, ZipArchive, unsafeNameReason } from "./zip-reader.js";

const MiB = 1024 * 1024;
const limits = { entriesMax: 50, unpackedMaxBytes: 1 * MiB, entryNameMaxChars: 200 };
const roots: string[] = [];

function workDir(): { root: string; dest: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), "codemode-zip-"));
  roots.push(root);
  return { root, dest: path.join(root, "inside", "bundle") };
}

async function unpack(zip: Buffer, dest: string): Promise<void> {
  const archive = ZipArchive.open(zip, limits);
  await archive.extractTo(dest);
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("ZipArchive", () => {
  it("unpacks a plain bundle with its folders and execute bits", async () => {
    const { dest } = workDir();
    mkdirSync(path.dirname(dest), { recursive: true });
    const zip = buildZip([
      { name: "manifest.json", data: "{}" },
      { name: "server/", mode: 0o040755 },
      { name: "server/index.js", data: "console.log(1)\n".repeat(100) },
      { name: "server/run", data: "#!/bin/sh\n", mode: 0o100755, deflate: false },
    ]);
    await unpack(zip, dest);
    expect(readFileSync(path.join(dest, "server", "index.js"), "utf8")).toContain("console.log(1)");
    expect(statSync(path.join(dest, "server", "run")).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(dest, "manifest.json")).mode & 0o777).toBe(0o644);
    expect(existsSync(`${dest}.partial`)).toBe(false);
  });

  it.each([
    ["../outside.txt", 'a ".." segment'],
    ["server/../../outside.txt", 'a ".." segment'],
    ["/tmp/codemode-zip-absolute.txt", "an absolute path"],
    ["C:/outside.txt", "a drive letter"],
    ["..\\outside.txt", "a backslash"],
  ])("refuses the entry %s (%s) and writes nothing anywhere", async (name, reason) => {
    const { root, dest } = workDir();
    const zip = buildZip([
      { name: "manifest.json", data: "{}" },
      { name, data: "pwned" },
    ]);
    await expect(unpack(zip, dest)).rejects.toThrow(reason);
    expect(readdirSync(root)).toEqual([]);
    expect(existsSync("/tmp/codemode-zip-absolute.txt")).toBe(false);
  });

  it("refuses a symbolic link before writing anything", async () => {
    const { root, dest } = workDir();
    const zip = buildZip([
      { name: "link", data: "/etc", mode: 0o120777 },
      { name: "link/passwd", data: "pwned" },
    ]);
    await expect(unpack(zip, dest)).rejects.toThrow("symbolic link");
    expect(readdirSync(root)).toEqual([]);
  });

  it("refuses a zip bomb whose header tells the truth, before inflating it", () => {
    const zip = buildZip([{ name: "zeros", data: Buffer.alloc(8 * MiB) }]);
    expect(zip.length).toBeLessThan(64 * 1024);
    expect(() => ZipArchive.open(zip, limits)).toThrow(`more than ${1 * MiB} bytes`);
  });

  it("stops inflating a zip bomb whose header lies about its size, writing nothing", async () => {
    const { root, dest } = workDir();
    mkdirSync(path.dirname(dest), { recursive: true });
    // 16 MiB of zeros claiming to be 100 bytes: a naive unzip writes all 16 MiB.
    const zip = buildZip([
      { name: "manifest.json", data: "{}" },
      { name: "zeros", data: Buffer.alloc(16 * MiB), declaredSize: 100 },
    ]);
    await expect(unpack(zip, dest)).rejects.toThrow("inflates to more than 100 bytes");
    expect(readdirSync(path.join(root, "inside"))).toEqual([]);
  });

  it("refuses more entries than allowed, and names differing only in case", () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, data: "x" }));
    expect(() => ZipArchive.open(buildZip(many), limits)).toThrow("51 entries; at most 50");
    const twins = buildZip([
      { name: "Server.js", data: "a" },
      { name: "server.js", data: "b" },
    ]);
    expect(() => ZipArchive.open(twins, limits)).toThrow("more than once");
  });

  it("refuses a damaged CRC and what is not a zip", async () => {
    const { dest } = workDir();
    const zip = buildZip([{ name: "a.txt", data: "hello", deflate: false }]);
    zip[30 + "a.txt".length] = "j".charCodeAt(0); // first data byte
    await expect(unpack(zip, dest)).rejects.toThrow("CRC");
    expect(() => ZipArchive.open(Buffer.from("not a zip at all, not even close"), limits)).toThrow(
      BundleError,
    );
  });

  it("names only plain relative paths safe", () => {
    expect(unsafeNameReason("server/index.js", 100)).toBeNull();
    expect(unsafeNameReason("server/", 100)).toBeNull();
    expect(unsafeNameReason("a//b", 100)).toContain("empty");
    expect(unsafeNameReason("./a", 100)).toContain("'.'");
    expect(unsafeNameReason("a\0b", 100)).toContain("NUL");
    expect(unsafeNameReason("x".repeat(101), 100)).toContain("longer");
  });
});
