import { afterEach, describe, expect, it } from "vitest";
import { chown, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { SHIM_EXIT } from "../ingress/local-access/local-access-constants.js";
import { socketLocationFor } from "../ingress/local-access/socket-path.js";
import { tokenPath } from "../ingress/local-access/token.js";
import { runShim } from "./shim.js";
import { alsoRemove, tempDir } from "../../../test-support/temp-dir.js";
import {
  NOBODY,
  INITIALIZE,
  shimIO,
  text,
  cleanUpShimTests,
  impostor,
} from "../../../test-support/shim-fixture.js";

afterEach(cleanUpShimTests);

describe("the install token never goes to a socket that isn't ours", () => {
  it("sends an impostor listening at the socket path nothing it can use, and refuses it", async () => {
    const dataDir = tempDir("cm-la-");
    const token = "d".repeat(64);
    await writeFile(tokenPath(dataDir), token + "\n", { mode: 0o600 });
    const fake = await impostor(socketLocationFor(dataDir, {}).socketPath);
    const io = shimIO();
    io.stdin.write(INITIALIZE);
    expect(await runShim({ ...io, dataDir, env: {} })).toBe(SHIM_EXIT.failed);
    expect(fake.received()).not.toContain(token);
    // It got a nonce and nothing more: no proof from the shim, no MCP byte.
    expect(fake.received()).toMatch(/^CODEMODE\/2 HELLO [0-9a-f]{64}\n$/);
    const said = text(io.stderr);
    expect(said).toContain("could not prove it knows this install's token");
    expect(said).toContain("Nothing was sent to it");
  });

  it("refuses a socket directory someone else makes while it waits for the app to start", async () => {
    // A data directory whose socket path is too long falls back to a directory under /tmp,
    // which anyone can create first.
    const parent = tempDir("cm-la-");
    const dataDir = path.join(parent, "a-rather-long-folder-name-".repeat(4));
    await mkdir(dataDir, { mode: 0o700 });
    const token = "e".repeat(64);
    await writeFile(tokenPath(dataDir), token + "\n", { mode: 0o600 });
    const location = socketLocationFor(dataDir, {});
    if (location.kind !== "unix" || !location.shared) throw new Error("expected a shared fallback");
    alsoRemove(location.dir);
    let fake: { received: () => string } | undefined;
    const io = shimIO();
    const exit = await runShim({
      ...io,
      dataDir,
      env: {},
      retryIntervalMs: 50,
      timeoutMs: 3_000,
      // Instead of the app, another user arrives: their directory, their listening socket.
      startApp: async () => {
        fake = await impostor(location.socketPath, (socket) => socket.end("OK\n"));
        await chown(location.dir, NOBODY, NOBODY);
        return "nothing (another user made the socket directory)";
      },
    });
    expect(exit).toBe(SHIM_EXIT.failed);
    expect(fake?.received()).toBe("");
    expect(text(io.stderr)).toContain(`${location.dir} belongs to another user (uid ${NOBODY})`);
  });

  it("refuses a socket file of another user in its own directory", async () => {
    const dataDir = tempDir("cm-la-");
    await writeFile(tokenPath(dataDir), "f".repeat(64) + "\n", { mode: 0o600 });
    const socketPath = socketLocationFor(dataDir, {}).socketPath;
    const fake = await impostor(socketPath, (socket) => socket.end("OK\n"));
    await chown(socketPath, NOBODY, NOBODY);
    const io = shimIO();
    expect(await runShim({ ...io, dataDir, env: {} })).toBe(SHIM_EXIT.failed);
    expect(fake.received()).toBe("");
    expect(text(io.stderr)).toContain(`${socketPath} belongs to another user (uid ${NOBODY})`);
  });
});
