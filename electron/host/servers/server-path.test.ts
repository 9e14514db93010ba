import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processRunning } from "../../../test-support/processes.js";
import { until } from "../../../test-support/wait.js";
import {
  LOGIN_SHELL_TERM_GRACE_MS,
  loginShellPath,
  mergePath,
  parseMarkedOutput,
  resolveServerPath,
  splitPath,
  wellKnownDirs,
  PATH_MAX_ENTRIES,
} from "./server-path.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "codemode-server-path-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A fake login shell: a script that ignores its flags and runs `body`. */
function fakeShell(name: string, body: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe("parseMarkedOutput", () => {
  it("reads the value between the markers, whatever the profile printed around it", () => {
    expect(
      parseMarkedOutput(
        "Welcome!\n__CODEMODE_PATH_START__/a:/b\n__CODEMODE_PATH_END__bye __CODEMODE_PATH_END__",
      ),
    ).toBe("/a:/b");
  });

  it("is null without both markers", () => {
    expect(parseMarkedOutput("no markers")).toBeNull();
    expect(parseMarkedOutput("__CODEMODE_PATH_START__/a")).toBeNull();
  });

  it("stays linear on a long hostile profile output", () => {
    const noise = "__CODEMODE_PATH_START".repeat(20_000);
    const started = performance.now();
    expect(parseMarkedOutput(noise)).toBeNull();
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("splitPath and mergePath", () => {
  it("keeps absolute directories only: a relative entry would follow the working directory", () => {
    expect(splitPath("/a::.:bin:/b/ ")).toEqual(["/a", "/b/"]);
  });

  it("merges in order without duplicates (a trailing slash is the same directory)", () => {
    expect(
      mergePath([
        { source: "login-shell", dirs: ["/x", "/usr/bin"] },
        { source: "process", dirs: ["/usr/bin/", "/bin"] },
        { source: "well-known", dirs: ["/x", "/opt/homebrew/bin"] },
      ]),
    ).toEqual([
      { dir: "/x", source: "login-shell" },
      { dir: "/usr/bin", source: "login-shell" },
      { dir: "/bin", source: "process" },
      { dir: "/opt/homebrew/bin", source: "well-known" },
    ]);
  });

  it(`keeps at most ${PATH_MAX_ENTRIES} entries`, () => {
    const dirs = Array.from({ length: PATH_MAX_ENTRIES + 10 }, (_, i) => `/d${i}`);
    expect(mergePath([{ source: "process", dirs }])).toHaveLength(PATH_MAX_ENTRIES);
  });
});

describe("wellKnownDirs", () => {
  it("names the usual homes of npx, uvx and docker", () => {
    const dirs = wellKnownDirs("/home/u", "darwin");
    for (const dir of [
      "/usr/local/bin",
      "/opt/homebrew/bin",
      "/home/u/.local/bin",
      "/home/u/.volta/bin",
      "/home/u/.nvm/current/bin",
      "/home/u/.cargo/bin",
    ]) {
      expect(dirs).toContain(dir);
    }
    expect(wellKnownDirs("C:\\Users\\u", "win32")).toEqual([]);
  });
});

describe("loginShellPath", () => {
  it("runs the shell as a login shell and reads PATH from it", async () => {
    const shell = fakeShell(
      "args-shell",
      // The shell gets -ilc and the command; a real profile would set PATH first.
      'echo "profile noise"; [ "$1" = "-ilc" ] || exit 3; PATH="/from/profile:$PATH"; export PATH; eval "$2"',
    );
    const result = await loginShellPath(shell, { PATH: "/usr/bin:/bin" });
    expect(result).toEqual({ ok: true, path: "/from/profile:/usr/bin:/bin" });
  });

  it("gives up after the timeout", async () => {
    const shell = fakeShell("slow-shell", "sleep 30");
    const started = Date.now();
    const result = await loginShellPath(shell, { PATH: "/usr/bin:/bin" }, 300);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain("within 300 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("ends a profile that overruns with SIGTERM first, so what it runs can release its lock", async () => {
    // pyenv's rehash, run by many profiles, holds a lock file that its exit trap removes. A
    // SIGKILL at the timeout left the lock behind, and every later shell of the user (the
    // app's next start, each terminal) waited 60 s on it. Real bash, as a login shell.
    const home = path.join(scratch, "locking-home");
    mkdirSync(home);
    const lock = path.join(home, "rehash.lock");
    const shellPid = path.join(home, "shell.pid");
    writeFileSync(
      path.join(home, "rehash.sh"),
      [
        `set -o noclobber; : > "${lock}"; set +o noclobber`,
        `trap 'rm -f "${lock}"' EXIT`,
        `echo $PPID > "${shellPid}"`,
        "sleep 60",
      ].join("\n"),
    );
    // The interactive shell ignores SIGTERM and goes on with its profile: the sleep after it
    // holds the shell until the SIGKILL that follows the grace.
    writeFileSync(path.join(home, ".bash_profile"), `bash "${home}/rehash.sh"\nsleep 60\n`);
    const result = await loginShellPath("/bin/bash", { HOME: home, PATH: "/usr/bin:/bin" }, 3_000);
    expect(result.ok).toBe(false);
    // Taken before the timeout, or the test shows nothing.
    expect(existsSync(shellPid)).toBe(true);
    await until(() => !existsSync(lock), "the profile's lock to be released", 10_000);
    const pid = Number(readFileSync(shellPid, "utf8"));
    await until(
      () => !processRunning(pid),
      "the login shell to be ended",
      LOGIN_SHELL_TERM_GRACE_MS + 10_000,
    );
  });

  it("answers as soon as PATH is out, even when the profile left something holding the pipe", async () => {
    const shell = fakeShell("daemonizing-shell", 'sleep 30 & eval "$2"');
    const started = Date.now();
    const result = await loginShellPath(shell, { PATH: "/usr/bin:/bin" }, 10_000);
    expect(result).toEqual({ ok: true, path: "/usr/bin:/bin" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("reports a shell that is missing or prints no PATH", async () => {
    const missing = await loginShellPath(path.join(scratch, "no-such-shell"), {});
    expect(missing.ok).toBe(false);
    const silent = await loginShellPath(fakeShell("silent-shell", "exit 0"), {});
    expect(silent.ok).toBe(false);
    expect(!silent.ok && silent.reason).toContain("without printing PATH");
  });
});

describe("resolveServerPath", () => {
  it("puts the login shell's PATH first, then the process's, then the usual places that exist", async () => {
    const home = path.join(scratch, "home");
    mkdirSync(path.join(home, ".cargo", "bin"), { recursive: true });
    const shell = fakeShell("profile-shell", 'PATH="/opt/tools:$PATH"; export PATH; eval "$2"');
    const resolved = await resolveServerPath({
      env: { SHELL: shell, HOME: home, PATH: "/usr/bin:/bin" },
      platform: "linux",
    });
    expect(resolved.shell).toBe(shell);
    expect(resolved.shellProblem).toBeNull();
    const dirs = resolved.path.split(":");
    expect(dirs.slice(0, 3)).toEqual(["/opt/tools", "/usr/bin", "/bin"]);
    expect(dirs).toContain(path.join(home, ".cargo", "bin"));
    expect(dirs).not.toContain(path.join(home, ".volta", "bin"));
    expect(new Set(dirs).size).toBe(dirs.length);
    expect(resolved.entries[0]).toEqual({ dir: "/opt/tools", source: "login-shell" });
  });

  it("falls back to the usual places when the login shell fails, and says why", async () => {
    const resolved = await resolveServerPath({
      env: { SHELL: fakeShell("broken-shell", "exit 1"), HOME: scratch, PATH: "/usr/bin" },
      platform: "linux",
      exists: (dir) => dir === "/usr/local/bin",
    });
    expect(resolved.shellProblem).toContain("without printing PATH");
    expect(resolved.path).toBe("/usr/bin:/usr/local/bin");
  });
});
