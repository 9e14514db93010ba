// Every Try it is in the audit log: a real host (no Docker needed), tries through the app's API
// and through the browser UI's WebSocket, real commands started and stopped. The attack it
// answers: anyone holding the UI's token could run `/bin/sh -c id` as the user through
// servers.try, and the log said nothing.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntryOf } from "../../../../shared/audit-entry.js";
import {
  api,
  auditEntries,
  cleanUpHosts,
  makeHome,
  startHostWithoutDocker,
} from "../../../../test-support/daemon.js";
import { packGreeterBundle } from "../../../../test-support/mcpb-fixture.js";
import { processRunning } from "../../../../test-support/processes.js";
import { TOY_SERVER_UNIT_JS } from "../../../../test-support/toy-build.js";
import { until } from "../../../../test-support/wait.js";
import { connectWsApi, type WsApi } from "../../../../test-support/ws-api.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { UiServer } from "../../ingress/ui-server/ui-server.js";

const SECRET = "sk-try-it-secret-4242";

describe("Try it in the audit log", () => {
  let home: string;
  let host: CodeModeHost;
  let ui: UiServer;
  let browser: WsApi;

  const started = () => auditEntries(home, "try_started");
  const finished = () => auditEntries(home, "try_finished");
  const finishOf = (entry: AuditEntryOf<"try_started">) =>
    finished().find((f) => f.tryId === entry.tryId);

  beforeAll(async () => {
    home = makeHome("codemode-try-log-");
    host = await startHostWithoutDocker(home);
    // The page is never loaded here: only its folder must exist.
    const page = path.join(home, "page");
    mkdirSync(page);
    ui = await UiServer.start({ host, staticDir: page, port: 0 });
    const link = new URL(ui.newLink());
    browser = await connectWsApi(Number(link.port), { ticket: link.hash.slice("#ticket=".length) });
  });

  afterAll(async () => {
    browser.close();
    await ui.close();
    await host.stop();
    await cleanUpHosts();
  });

  it("a shell command tried from the app is on the record: who, what, and how it ended, secrets replaced", async () => {
    const result = await api(host, "servers.try", {
      name: "shell",
      entry: {
        command: "/bin/sh",
        args: ["-c", `echo "id=$(id -u)"; echo "key ${SECRET} in an argument" >&2; exit 3`],
        env: { API_KEY: SECRET, PLAIN: "visible" },
        secret: ["API_KEY"],
      },
    });
    expect(result.ok).toBe(false);
    await host.auditDurable();
    const [entry] = started();
    expect(entry).toMatchObject({
      by: "app",
      source: "entry",
      server: "shell",
      command: "/bin/sh",
    });
    const args = JSON.parse(entry!.args) as string[];
    expect(args[0]).toBe("-c");
    // Only the secret's occurrence is replaced: what the command does stays readable.
    expect(args[1]).toContain('echo "id=$(id -u)"');
    expect(args[1]).toContain("key [secret] in an argument");
    expect(JSON.parse(entry!.env)).toEqual({ API_KEY: "[secret]", PLAIN: "visible" });
    expect(finishOf(entry!)).toMatchObject({
      by: "app",
      server: "shell",
      ok: false,
      toolCount: null,
    });
    expect(finishOf(entry!)?.error).toContain('Server "shell" failed to start');
    const log = readdirSync(path.join(home, "audit"))
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => readFileSync(path.join(home, "audit", name), "utf8"))
      .join("");
    expect(log).not.toContain(SECRET);
  });

  it("a try from the browser UI is logged as the browser's, with the tools a server listed", async () => {
    const result = await browser.request("servers.try", {
      name: "toy",
      entry: { command: process.execPath, args: [TOY_SERVER_UNIT_JS] },
    });
    expect(result.ok && result.toolCount).toBeGreaterThan(0);
    await host.auditDurable();
    const entry = started().find((e) => e.server === "toy");
    expect(entry).toMatchObject({ by: "browser", source: "entry", command: process.execPath });
    expect(finishOf(entry!)).toMatchObject({
      by: "browser",
      ok: true,
      toolCount: result.ok ? result.toolCount : -1,
      error: null,
    });
  });

  it("try_started is on disk before the command starts: the command itself finds it there", async () => {
    const copy = path.join(home, "what-the-command-saw.jsonl");
    await api(host, "servers.try", {
      name: "reader",
      entry: {
        command: "/bin/sh",
        args: ["-c", 'cat "$0"/*.jsonl > "$1"', path.join(home, "audit"), copy],
      },
    });
    const seen = readFileSync(copy, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { kind: string; server?: string });
    expect(seen.filter((e) => e.kind === "try_started").map((e) => e.server)).toContain("reader");
  });

  it("a bundle tried from the browser is logged with its source, its sensitive value replaced", async () => {
    const bundle = readFileSync(packGreeterBundle()).toString("base64");
    const result = await browser.request("servers.tryBundle", {
      name: "greeter",
      bundle,
      values: { api_key: SECRET },
    });
    expect(result.ok && result.toolCount).toBe(1);
    await host.auditDurable();
    const entry = started().find((e) => e.server === "greeter");
    expect(entry).toMatchObject({ by: "browser", source: "bundle", command: "node" });
    expect(JSON.parse(entry!.env)).toEqual({ GREETER_API_KEY: "[secret]" });
    expect(finishOf(entry!)).toMatchObject({ ok: true, toolCount: 1 });
  });

  it("`codemode audit verify` still passes with try entries in the chain", async () => {
    await host.auditDurable();
    const verdict = await host.audit.verify();
    expect(verdict).toMatchObject({ ok: true });
  });
});

describe("a try when the app stops", () => {
  it("ends with the app: its server's whole tree stopped, its end logged", async () => {
    const home = makeHome("codemode-try-stop-");
    const host = await startHostWithoutDocker(home);
    const pidFile = path.join(home, "sleep.pid");
    try {
      // A server that never answers: the try would wait its whole timeout.
      const trying = api(host, "servers.try", {
        name: "mute",
        entry: {
          command: "/bin/sh",
          args: ["-c", `sleep 777 & echo $! > ${pidFile}; exec sleep 778`],
        },
      });
      trying.catch(() => undefined);
      await until(
        () => existsSync(pidFile) && readFileSync(pidFile, "utf8").includes("\n"),
        "the try to start",
      );
      const sleeper = Number(readFileSync(pidFile, "utf8"));
      // The background sleep and the first process (sh, now `sleep 778`), its parent.
      const tried = [sleeper, Number(execFileSync("ps", ["-o", "ppid=", "-p", String(sleeper)]))];
      expect(tried.every((pid) => processRunning(pid))).toBe(true);
      await host.stop();
      const result = await trying;
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error).toContain("Code Mode stopped during the try");
      await until(() => tried.every((pid) => !processRunning(pid)), "the tried tree to end");
      expect(auditEntries(home, "try_finished")).toEqual([
        expect.objectContaining({ server: "mute", ok: false }),
      ]);
    } finally {
      await host.stop();
      await cleanUpHosts();
    }
  });
});
