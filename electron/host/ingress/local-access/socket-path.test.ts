import { lstat, mkdir, chmod, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  SocketDirError,
  dataDirHash,
  prepareSocketDir,
  socketLocation,
  type SocketPlatform,
  socketDirProblem,
  SOCKET_PATH_MAX_BYTES,
} from "./socket-path.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";

afterEach(removeTempDirs);

const linux: SocketPlatform = {
  platform: "linux",
  uid: 1000,
  tmpdir: "/tmp",
  xdgRuntimeDir: "/run/user/1000",
};

const longDataDir = "/home/alice/" + "a-rather-long-folder-name/".repeat(5) + "codemode";
const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

describe("socketLocation", () => {
  it("puts the socket in run/ under the data directory when the path is short", () => {
    expect(socketLocation("/home/alice/.config/codemode", linux)).toEqual({
      kind: "unix",
      dir: "/home/alice/.config/codemode/run",
      socketPath: "/home/alice/.config/codemode/run/codemode.sock",
      shared: false,
    });
  });

  it("falls back to XDG_RUNTIME_DIR/codemode-<hash> for a long data dir, under 100 bytes", () => {
    const location = socketLocation(longDataDir, linux);
    const hash = dataDirHash(longDataDir, "linux");
    expect(hash).toMatch(/^[0-9a-f]{12}$/);
    expect(location).toEqual({
      kind: "unix",
      dir: `/run/user/1000/codemode-${hash}`,
      socketPath: `/run/user/1000/codemode-${hash}/codemode.sock`,
      shared: true,
    });
    expect(bytes(location.socketPath)).toBeLessThanOrEqual(SOCKET_PATH_MAX_BYTES);
  });

  it("falls back to tmpdir/codemode-<uid>-<hash> without XDG_RUNTIME_DIR", () => {
    const location = socketLocation(longDataDir, { ...linux, xdgRuntimeDir: undefined });
    const hash = dataDirHash(longDataDir, "linux");
    expect(location.socketPath).toBe(`/tmp/codemode-1000-${hash}/codemode.sock`);
    expect(location.kind === "unix" && location.shared).toBe(true);
  });

  it("uses /tmp when even os.tmpdir() is too long (macOS-style deep temp dirs)", () => {
    const deepTmp = "/var/folders/" + "x".repeat(90) + "/T";
    const location = socketLocation(longDataDir, {
      ...linux,
      platform: "darwin",
      xdgRuntimeDir: undefined,
      tmpdir: deepTmp,
    });
    expect(location.socketPath.startsWith("/tmp/codemode-1000-")).toBe(true);
  });

  it("counts bytes, not characters, against the limit", () => {
    // 45 three-byte characters: 45 characters but 135 bytes.
    const dir = "/home/" + "€".repeat(45);
    const location = socketLocation(dir, linux);
    expect(location.kind === "unix" && location.shared).toBe(true);
  });

  it("names a Windows named pipe by the data dir hash, case-insensitively", () => {
    const a = socketLocation("C:\\Users\\Alice\\AppData\\Roaming\\Code Mode", {
      platform: "win32",
      uid: undefined,
      tmpdir: "C:\\Temp",
      xdgRuntimeDir: undefined,
    });
    const b = socketLocation("c:\\users\\alice\\appdata\\roaming\\code mode", {
      platform: "win32",
      uid: undefined,
      tmpdir: "C:\\Temp",
      xdgRuntimeDir: undefined,
    });
    expect(a.kind).toBe("pipe");
    expect(a.socketPath).toMatch(/^\\\\\.\\pipe\\codemode-[0-9a-f]{12}$/);
    expect(b.socketPath).toBe(a.socketPath);
  });

  it("gives every data directory its own socket and the same one every time", () => {
    expect(socketLocation(longDataDir, linux)).toEqual(socketLocation(longDataDir, linux));
    expect(socketLocation(longDataDir + "2", linux).socketPath).not.toBe(
      socketLocation(longDataDir, linux).socketPath,
    );
  });
});

describe("prepareSocketDir", () => {
  it("creates run/ with mode 0700 and repairs a looser one of ours", async () => {
    const dataDir = tempDir("cm-la-");
    const location = socketLocation(path.join(dataDir, "home"), {
      ...linux,
      uid: process.getuid?.(),
    });
    if (location.kind !== "unix") throw new Error("expected a unix location");
    await prepareSocketDir(location);
    expect((await lstat(location.dir)).mode & 0o777).toBe(0o700);
    await chmod(location.dir, 0o755);
    await prepareSocketDir(location);
    expect((await lstat(location.dir)).mode & 0o777).toBe(0o700);
  });

  it("refuses an existing shared directory that others can enter", async () => {
    const parent = tempDir("cm-la-");
    const dir = path.join(parent, "codemode-shared");
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const location = {
      kind: "unix",
      dir,
      socketPath: path.join(dir, "codemode.sock"),
      shared: true,
    } as const;
    await expect(prepareSocketDir(location)).rejects.toThrow(
      /can be entered by other users \(mode 0755\)/,
    );
  });

  it("refuses an existing shared directory owned by someone else", async () => {
    const parent = tempDir("cm-la-");
    const dir = path.join(parent, "codemode-shared");
    await mkdir(dir, { mode: 0o700 });
    const location = {
      kind: "unix",
      dir,
      socketPath: path.join(dir, "codemode.sock"),
      shared: true,
    } as const;
    const notUs = (process.getuid?.() ?? 0) + 1;
    await expect(prepareSocketDir(location, notUs)).rejects.toThrow(SocketDirError);
    await expect(prepareSocketDir(location, notUs)).rejects.toThrow(/belongs to another user/);
  });

  it("refuses a symlink in place of the socket directory", async () => {
    const parent = tempDir("cm-la-");
    const target = path.join(parent, "elsewhere");
    await mkdir(target, { mode: 0o700 });
    const dir = path.join(parent, "codemode-shared");
    await symlink(target, dir);
    const location = {
      kind: "unix",
      dir,
      socketPath: path.join(dir, "codemode.sock"),
      shared: true,
    } as const;
    await expect(prepareSocketDir(location)).rejects.toThrow(/should be a directory/);
  });
});

describe("the shim's check before it sends the token", () => {
  it("accepts our own 0700 directory and refuses one that others can enter or do not own", async () => {
    const dir = path.join(tempDir("cm-la-"), "run");
    await mkdir(dir, { mode: 0o700 });
    const location = {
      kind: "unix",
      dir,
      socketPath: path.join(dir, "s.sock"),
      shared: true,
    } as const;
    expect(await socketDirProblem(location)).toBeNull();
    await chmod(dir, 0o755);
    expect(await socketDirProblem(location)).toMatch(/can be entered by other users \(mode 0755\)/);
    await chmod(dir, 0o700);
    expect(await socketDirProblem(location, 12345)).toMatch(/belongs to another user/);
    expect(await socketDirProblem({ ...location, dir: path.join(dir, "absent") })).toBeNull();
  });
});
