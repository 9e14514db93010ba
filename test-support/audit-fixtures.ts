// Entries for the audit tests (one of each kind, and a call generator whose fields cycle so
// that every filter has something to find and something to leave out), and readers of the
// log files they write.
import { createHash } from "node:crypto";
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { AuditEntryInput } from "../shared/audit-entry.js";
import { tempDir } from "./temp-dir.js";

/** An audit directory (not yet made: the log makes it) inside a fresh temporary directory. */
export function makeTempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const root = tempDir("codemode-audit-");
  return Promise.resolve({
    dir: path.join(root, "audit"),
    remove: () => rm(root, { recursive: true, force: true }),
  });
}

export const HASH = "a".repeat(64);

export function oneOfEachKind(): AuditEntryInput[] {
  return [
    { kind: "client_connected", client: "claude", clientVersion: "1.0", connectionId: "c1" },
    {
      kind: "run_started",
      runId: "r1",
      client: "claude",
      code: "print(1)",
      codeBytes: 8,
      codeHash: HASH,
    },
    callInput(0, { runId: "r1" }),
    {
      kind: "run_finished",
      runId: "r1",
      client: "claude",
      durationMs: 12,
      calls: 1,
      exitCode: 0,
      stopped: null,
      timedOut: false,
      truncated: false,
      error: null,
      stdoutBytes: 2,
      stderrBytes: 0,
    },
    { kind: "config_changed", summary: "added weather", servers: ["weather", "files"] },
    { kind: "settings_changed", changes: { deadlineSeconds: { from: 90, to: 60 } } },
    { kind: "image_build", tag: "codemode-sandbox:abc", ok: true, error: null, durationMs: 3000 },
    { kind: "taint_set", client: "claude", server: "files", tool: "read_file" },
    { kind: "taint_reset", client: "claude", previousTool: "read_file" },
    { kind: "auth_refused", reason: "bad token", transport: "socket" },
    { kind: "auth_refusals_not_logged", count: 9970, transports: ["socket", "http"] },
    { kind: "client_disconnected", client: "claude", clientVersion: null, connectionId: "c1" },
    {
      kind: "calls_not_logged",
      runId: "r1",
      client: "claude",
      cause: "call_budget",
      count: 10,
      tools: ["weather__forecast"],
    },
    {
      kind: "audit_recovered",
      failedSince: new Date(0).toISOString(),
      error: "ENOSPC: no space left on device",
      lost: 2,
    },
    {
      kind: "audit_pruned",
      files: ["00000000000000000001-20260101T000000Z.jsonl"],
      fromSeq: 1,
      toSeq: 40,
      bytes: 20_000,
      maxTotalBytes: 16 * 1024 * 1024,
    },
    { kind: "docker_lost", endpoint: "unix:///var/run/docker.sock", reason: "event stream ended" },
    { kind: "clients_not_logged", count: 150 },
    {
      kind: "client_cut_off",
      transport: "socket",
      client: "claude",
      connectionId: "c1",
      unreadBytes: 17 * 1024 * 1024,
      limitBytes: 16 * 1024 * 1024,
    },
    { kind: "cut_offs_not_logged", count: 4 },
    { kind: "connections_capped", server: "mcp_http", max: 1024, refused: 1 },
    { kind: "connections_uncapped", server: "mcp_http", max: 1024, refused: 500, durationMs: 2000 },
    {
      kind: "runs_refused",
      cause: "docker_unreachable",
      count: 3,
      firstAt: new Date(0).toISOString(),
      lastAt: new Date(1000).toISOString(),
      clients: ["claude"],
    },
    {
      kind: "docker_back",
      endpoint: "unix:///var/run/docker.sock",
      downMs: 4000,
      sweptContainers: 2,
      warmContainers: 1,
    },
    {
      kind: "run_abandoned",
      runId: "r2",
      client: "claude",
      reason: "the app stopped",
      startedSeq: 3,
    },
    {
      kind: "approval_requested",
      requestId: "q1",
      runId: "r1",
      client: "claude",
      server: "notes",
      tool: "notes__delete",
      serverTool: "delete",
      args: '{"id":1}',
      elicited: true,
    },
    {
      kind: "approval_answered",
      requestId: "q1",
      runId: "r1",
      client: "claude",
      server: "notes",
      tool: "notes__delete",
      serverTool: "delete",
      answer: "allow_once",
      by: "client",
      waitedMs: 1200,
    },
    { kind: "tools_pinned", server: "notes", count: 3 },
    { kind: "pins_moved", from: "mail", to: "email", pinned: 3, held: 1 },
    {
      kind: "tool_held",
      server: "notes",
      tool: "delete",
      change: "changed",
      pinnedHash: "a".repeat(64),
      heldHash: "b".repeat(64),
    },
    {
      kind: "tool_reviewed",
      server: "notes",
      tool: "delete",
      change: "changed",
      pinnedHash: "a".repeat(64),
      heldHash: "b".repeat(64),
      decision: "accept",
      by: "cli",
    },
    {
      kind: "try_started",
      tryId: "t1",
      by: "browser",
      source: "entry",
      server: "files",
      command: "npx",
      args: '["-y","@modelcontextprotocol/server-filesystem","/tmp"]',
      env: '{"TOKEN":"[secret]"}',
    },
    {
      kind: "try_finished",
      tryId: "t1",
      by: "browser",
      server: "files",
      ok: true,
      toolCount: 14,
      error: null,
      durationMs: 1800,
    },
    {
      kind: "workspace_edited",
      client: "claude",
      workspace: "sales",
      action: "file_added",
      by: "ui",
      path: "data/q3.csv",
      bytes: 5120,
      sha256: "b".repeat(64),
    },
    {
      kind: "workspace_keep_differed",
      runId: "r1",
      client: "claude",
      workspace: "sales",
      kept: false,
      reason:
        'the previous run\'s code wrote to the workspace "sales" after that run ended, and the workspace "sales" would hold 2 MiB, over its limit of 1 MiB: nothing of that run was kept, and it holds what it held before that run.',
      answered: {
        ...{ name: "sales", kept: true, filesChanged: 1, bytesChanged: 5120 },
        ...{ files: 2, bytes: 10240, private: false },
      },
      now: {
        ...{ name: "sales", kept: false, filesChanged: 0, bytesChanged: 0 },
        ...{ files: 1, bytes: 5120, private: false },
      },
    },
  ];
}

const CLIENTS = ["claude", "cursor", "vscode"] as const;
const SERVERS = ["weather", "files", "mail", "calendar", "notes"] as const;
const DECISIONS = ["allowed", "allowed", "refused", "failed"] as const;

export function callInput(
  i: number,
  overrides: Partial<Extract<AuditEntryInput, { kind: "call" }>> = {},
): Extract<AuditEntryInput, { kind: "call" }> {
  const server = SERVERS[i % SERVERS.length] ?? "weather";
  const tool = `tool_${i % 7}`;
  const decision = DECISIONS[i % DECISIONS.length] ?? "allowed";
  return {
    kind: "call",
    runId: `run-${Math.floor(i / 10)}`,
    client: CLIENTS[i % CLIENTS.length] ?? "claude",
    server,
    tool: `${server}__${tool}`,
    serverTool: tool,
    decision,
    reason: decision === "allowed" ? null : `reason ${i}`,
    detail: null,
    argBytes: 20,
    args: JSON.stringify({ city: `City ${i}`, note: i % 97 === 0 ? "Needle in a haystack" : "x" }),
    resultBytes: decision === "refused" ? null : 10,
    resultHash: decision === "refused" ? null : HASH,
    durationMs: i % 50,
    private: false,
    ...overrides,
  };
}

/** Mostly calls, with the other kinds sprinkled in. */
export function mixedInput(i: number): AuditEntryInput {
  if (i % 10 === 0) {
    return {
      kind: "run_started",
      runId: `run-${i / 10}`,
      client: CLIENTS[i % CLIENTS.length] ?? "claude",
      code: `print(${i})`,
      codeBytes: 10,
      codeHash: HASH,
    };
  }
  if (i % 25 === 0) {
    return { kind: "config_changed", summary: `change ${i}`, servers: ["mail", "notes"] };
  }
  if (i % 31 === 0) {
    return { kind: "taint_set", client: "cursor", server: "files", tool: "tool_3" };
  }
  return callInput(i);
}

/** The log's files in `dir`, oldest first. */
export async function logFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
}

/** Every line of every log file in `dir`, oldest first, without empty lines. */
export async function allLines(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const name of await logFiles(dir)) {
    const text = await readFile(path.join(dir, name), "utf8");
    lines.push(...text.split("\n").filter((line) => line !== ""));
  }
  return lines;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
