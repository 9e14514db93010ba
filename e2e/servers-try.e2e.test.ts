// "Try it" through the typed API of a real host: catalog entries built as the gallery builds
// them, started for real (the published filesystem and memory servers, run by npx from this
// checkout's node_modules), their tools listed under the code's names, then stopped; and
// failing servers answered as data with their stderr and a hint, secrets masked. And each try
// in the audit log before it runs, also one whose command kills the app (a real daemon).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../electron/host/api/api-dispatcher.js";
import type { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import type { TryServerView } from "../shared/api/api-views.js";
import { buildEntry, findCatalogEntry } from "../shared/server-catalog/server-catalog.js";
import {
  api,
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  makeHome,
  startDaemon,
  startHostInProcess,
  stopHostInProcess,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { connectWsApi } from "../test-support/ws-api.js";

function catalogEntry(id: string, values: Record<string, string | string[]>) {
  const entry = findCatalogEntry(id);
  if (!entry) throw new Error(`no catalog entry ${id}`);
  const built = buildEntry(entry, values);
  if (!built.ok) throw new Error(JSON.stringify(built.problems));
  return built.entry;
}

function failed(result: TryServerView) {
  if (result.ok) throw new Error(`expected a failed try, got ${result.toolCount} tools`);
  return result;
}

describe("servers.try (Try it)", () => {
  let host: CodeModeHost;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), "codemode-try-"));
    ({ host } = await startHostInProcess(makeHome()));
  });
  afterAll(async () => {
    await stopHostInProcess(host);
    await cleanUpHosts();
    rmSync(folder, { recursive: true, force: true });
  });

  it("starts the catalog's filesystem server on a folder, lists its tools by the code's names, and stops it", async () => {
    const result = await api(host, "servers.try", {
      name: "files",
      entry: catalogEntry("filesystem", { folders: [folder] }),
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const names = result.tools.map((t) => t.pyName);
    expect(names).toContain("files__read_text_file");
    expect(names).toContain("files__list_directory");
    expect(result.toolCount).toBe(result.tools.length);
    expect(result.tools.find((t) => t.name === "list_directory")?.description).not.toBe("");
    // Nothing was saved and nothing keeps running.
    expect(host.configStore.current.servers.size).toBe(0);
    expect(host.servers.get("files")).toBeUndefined();
  });

  it("starts memory and lists its graph tools", async () => {
    const result = await api(host, "servers.try", {
      name: "memory",
      entry: catalogEntry("memory", { "memory-file": path.join(folder, "memory.json") }),
    });
    expect(result.ok && result.tools.map((t) => t.pyName)).toContain("memory__create_entities");
  });

  it("shows a failing server's stderr, with a hint naming the folder that does not exist", async () => {
    const missing = path.join(folder, "not-there");
    const result = failed(
      await api(host, "servers.try", {
        name: "files",
        entry: catalogEntry("filesystem", { folders: [missing] }),
      }),
    );
    expect(result.hint).toBe(`This folder or file does not exist: ${missing}`);
    expect(result.stderrTail.join("\n")).toContain(
      "None of the specified directories are accessible",
    );
  });

  it("says when the command is not on the PATH servers get", async () => {
    const result = failed(
      await api(host, "servers.try", {
        name: "nope",
        entry: { command: "codemode-no-such-command", args: [] },
      }),
    );
    expect(result.hint).toContain(
      '"codemode-no-such-command" was not found on the PATH servers get',
    );
  });

  it("points at the env variable a server complains about, and never shows the secret", async () => {
    const secret = "sk-try-it-very-secret-1234";
    const script =
      "console.error('API_TOKEN rejected: ' + process.env.API_TOKEN); process.exit(1);";
    const result = failed(
      await api(host, "servers.try", {
        name: "strict",
        entry: {
          command: process.execPath,
          args: ["-e", script],
          env: { API_TOKEN: secret },
          secret: ["API_TOKEN"],
        },
      }),
    );
    expect(result.hint).toBe("The server complains about API_TOKEN: check the value you gave.");
    expect(result.stderrTail.join("\n")).toContain("API_TOKEN rejected");
    expect(JSON.stringify(result)).not.toContain(secret);
  });

  it("refuses, as data, an entry that could not be saved either", async () => {
    const response = await dispatchApi(host.api, "servers.try", {
      name: "bad name!",
      entry: { command: "" },
    });
    expect(response.ok).toBe(false);
    if (response.ok) return;
    expect(response.error.code).toBe("invalid");
    expect(response.error.message).toContain('"command" must be a non-empty string');
    const unknown = await dispatchApi(host.api, "servers.try", {
      name: "x",
      entry: { command: "node", url: "http://x" },
    } as never);
    expect(unknown.ok).toBe(false);
  });
});

describe("a try whose command kills the app", () => {
  afterAll(async () => {
    await cleanUpHosts();
  });

  it("is in the log all the same: try_started is on disk before the command starts", async () => {
    assertHostBuilt();
    const home = makeHome();
    // No engine: a daemon killed outright would leave its warm containers until its next start.
    const daemon = await startDaemon(home, {
      args: ["--ui"],
      env: { DOCKER_HOST: "unix:///codemode-tests-no-engine.sock" },
    });
    const urlLine = /^http:\/\/127\.0\.0\.1:(\d+)\/#ticket=([0-9a-f]+)$/m;
    await until(() => urlLine.test(daemon.stdout()), "the UI URL on stdout");
    const [, port, ticket] = urlLine.exec(daemon.stdout())!;
    const browser = await connectWsApi(Number(port), { ticket: ticket! });
    // sh's parent is the daemon: the tried command ends it at once, with no chance to log.
    const trying = browser.request("servers.try", {
      name: "killer",
      entry: { command: "/bin/sh", args: ["-c", "kill -9 $PPID"] },
    });
    trying.catch(() => undefined);
    expect(await daemon.exited).toEqual({ code: null, signal: "SIGKILL" });
    browser.close();
    expect(auditEntries(home, "try_started")).toEqual([
      expect.objectContaining({
        by: "browser",
        server: "killer",
        command: "/bin/sh",
        args: JSON.stringify(["-c", "kill -9 $PPID"]),
      }),
    ]);
  });
});
