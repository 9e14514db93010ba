import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { SHIM_EXIT } from "../ingress/local-access/local-access-constants.js";
import { collect } from "../../../test-support/local-access.js";
import { requestId } from "./shim.js";
import { shimCommand } from "../cli/commands/shim-command.js";
import { tempDir } from "../../../test-support/temp-dir.js";
import {
  repoRoot,
  listen,
  echo,
  shimIO,
  text,
  cleanUpShimTests,
} from "../../../test-support/shim-fixture.js";

afterEach(cleanUpShimTests);

describe("shim as a real subprocess", () => {
  it("starts, hands over, round-trips and exits 0 when the client ends (start-up printed)", async () => {
    const dataDir = tempDir("cm-la-");
    let handshakeAt = 0;
    await listen(dataDir, (socket) => {
      handshakeAt = performance.now();
      socket.once("data", (chunk: Buffer) => socket.write(`echo:${chunk.toString()}`));
      socket.on("end", () => socket.end());
    });
    const env: NodeJS.ProcessEnv = { ...process.env, CODEMODE_HOME: dataDir };
    delete env.CODEMODE_APP;
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, ["--import", "tsx", "electron/host/shim/shim-main.ts"], {
      cwd: repoRoot,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    // The client says one line and goodbye; the host answers, then ends (a host that ends
    // while the client stays is reconnected to: shim-session.test.ts).
    child.stdin.end("ping\n");
    const code = await exited;
    console.log(
      `shim start-up (tsx, spawn -> handshake received by the host): ${(handshakeAt - spawnedAt).toFixed(0)} ms`,
    );
    expect((await err).toString()).toBe("");
    expect(code).toBe(0);
    expect((await out).toString()).toBe("echo:ping\n");
    expect(handshakeAt).toBeGreaterThan(spawnedAt);
  });
});

describe("shim start-up weight", () => {
  it("loads only Node built-ins and its own small modules (nothing from node_modules)", async () => {
    const allowed = new Set([
      "node:net",
      "node:fs",
      "node:fs/promises",
      "node:path",
      "node:crypto",
      "node:child_process",
      // os.tmpdir() for the socket fallback, url for finding the package; both already
      // loaded by Node itself before any user code runs.
      "node:os",
      "node:url",
    ]);
    const seen = new Set<string>();
    const external = new Set<string>();
    const visit = async (file: string): Promise<void> => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = await readFile(file, "utf8");
      // Type-only imports are erased at compile time and cost nothing at start-up.
      // eslint-disable-next-line regexp/no-super-linear-backtracking -- our own source files, not text anyone else controls
      for (const match of source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)) {
        const [, typeOnly, specifier] = match;
        if (typeOnly || specifier === undefined) continue;
        if (specifier.startsWith(".")) {
          await visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts")));
        } else {
          external.add(specifier);
        }
      }
    };
    await visit(path.join(repoRoot, "electron/host/shim/shim-main.ts"));
    expect([...external].filter((specifier) => !allowed.has(specifier))).toEqual([]);
    const local = [...seen].map((file) => path.relative(repoRoot, file)).sort();
    expect(local).toEqual([
      "electron/host/ingress/local-access/app-log.ts",
      "electron/host/ingress/local-access/data-dir-trust.ts",
      "electron/host/ingress/local-access/handshake.ts",
      "electron/host/ingress/local-access/local-access-constants.ts",
      "electron/host/ingress/local-access/socket-path.ts",
      "electron/host/ingress/local-access/token-header.ts",
      "electron/host/ingress/local-access/token.ts",
      "electron/host/shim/in-flight.ts",
      "electron/host/shim/replay-initialize.ts",
      "electron/host/shim/shim-handshake.ts",
      "electron/host/shim/shim-main.ts",
      "electron/host/shim/shim-session.ts",
      "electron/host/shim/shim.ts",
      "electron/host/shim/start-app.ts",
      "electron/host/util/create-once.ts",
      "electron/host/util/errno.ts",
      "electron/host/util/line-framer.ts",
      "electron/host/util/paths.ts",
      "electron/host/util/sha256-hex.ts",
      "electron/host/util/terminal-text.ts",
      "electron/host/util/token-header-args.ts",
      "electron/host/util/units.ts",
      "shared/hidden-chars.ts",
      "shared/limits.ts",
    ]);
  });
});

describe("codemode shim (CLI command)", () => {
  it("prints help, rejects arguments, and pipes for the data dir in CODEMODE_HOME", async () => {
    const help = shimIO();
    const signal = new AbortController().signal;
    expect(await shimCommand(["--help"], { ...help, env: {}, signal })).toBe(0);
    expect(text(help.stdout)).toContain("Usage: codemode shim");
    const bad = shimIO();
    expect(await shimCommand(["extra"], { ...bad, env: {}, signal })).toBe(2);
    expect(text(bad.stderr)).toContain("takes no arguments");

    const dataDir = tempDir("cm-la-");
    await listen(dataDir, echo);
    const io = shimIO();
    const out = collect(io.stdout);
    const exit = shimCommand([], { ...io, env: { CODEMODE_HOME: dataDir }, signal });
    io.stdin.end("via the CLI\n");
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect((await out).toString()).toBe("via the CLI\n");
  });
});

describe("shim helpers", () => {
  it("reads a JSON-RPC request id, or nothing for lines that are not requests", () => {
    expect(requestId('{"jsonrpc":"2.0","id":1,"method":"initialize"}')).toBe(1);
    expect(requestId('{"id":"x"}')).toBe("x");
    expect(requestId('{"id":null}')).toBeUndefined();
    expect(requestId("[1]")).toBeUndefined();
    expect(requestId("not json")).toBeUndefined();
    expect(requestId("")).toBeUndefined();
  });
});
