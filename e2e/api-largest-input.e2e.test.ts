// No API request can take the host down. Every channel of the contract, with its
// largest input, sent to a real `codemode daemon --ui` over its WebSocket (the transport whose
// JSON.stringify used to die on a huge reply): each gets an answer (a value or an error, as
// data) no longer than API_LIMITS.responseMaxChars, and the daemon is still up at the end.
// The table is typed by the contract and checked against its channel list, so a new channel
// cannot be left out. The log is prefilled with runs whose code is at its cap, so a page of
// audit.query at its largest limit would not fit one answer without the page's own cap.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  API_CHANNELS,
  type ApiChannel,
  type ApiParams,
  type ApiResponse,
} from "../shared/api/api-contract.js";
import {
  API_LIMITS,
  APPROVAL_LIMITS,
  AUDIT_LIMITS,
  HOST_LIMITS,
  MCPB_LIMITS,
  WORKSPACE_LIMITS,
} from "../shared/limits.js";
import { CHECKPOINT_FILE } from "../electron/host/audit/audit-checkpoint.js";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { sha256 } from "../test-support/audit-fixtures.js";
import { startUiDaemon, type UiDaemon } from "../test-support/browser.js";
import { assertHostBuilt, cleanUpHosts, makeHome, writeServers } from "../test-support/daemon.js";
import { LIST_PAGE_MAX_CHARS } from "../electron/host/api/handlers/list-page.js";

/** Runs whose code is at the log's cap: the newest 1,000 entries are ~8 M characters as JSON. */
const BIG_RUNS = AUDIT_LIMITS.queryMaxLimit + 50;

/**
 * Servers with long args: ~20 Mi characters as a list, past the reply cap whole, so only the
 * pages of servers.list (and the first page in every answer that changes the list) fit.
 */
const BIG_SERVERS = 320;
const BIG_ARG_CHARS = 64 * 1024;

const name = (chars: number): string => "n".repeat(chars);

/** A config snippet of many servers, as long as config.parseSnippet takes. */
function bigSnippet(): string {
  const servers: string[] = [];
  let length = 20;
  for (let i = 0; length < API_LIMITS.configTextMaxChars - 100; i += 1) {
    const entry = `"s${i}":{"command":"node","args":["server-${i}.js"]}`;
    servers.push(entry);
    length += entry.length + 1;
  }
  return `{"mcpServers":{${servers.join(",")}}}`;
}

/** The largest base64 the bundle channels take (not a real bundle: it is refused, as data). */
const bigBundle = "A".repeat(Math.ceil(MCPB_LIMITS.uploadMaxBytes / 3) * 4);

const LARGEST: { [C in ApiChannel]: ApiParams<C> } = {
  "app.info": {},
  "app.description": {},
  "app.setPaused": { paused: false },
  "docker.status": {},
  "image.status": {},
  "image.build": {},
  "sandbox.runtimes": {},
  "sandbox.pool": {},
  "config.get": {},
  "config.save": {
    json: `{"mcpServers":{}}${" ".repeat(API_LIMITS.configTextMaxChars - 20)}`,
  },
  "config.parseSnippet": { text: bigSnippet() },
  "config.claudeDesktopServers": {},
  "servers.list": { limit: API_LIMITS.serversPageMaxLimit },
  "servers.upsert": {
    name: name(API_LIMITS.upsertNameMaxChars),
    entry: { command: "node", args: ["x".repeat(64 * 1024)] },
  },
  "servers.try": {
    name: name(API_LIMITS.upsertNameMaxChars),
    entry: { command: "node", args: ["x".repeat(64 * 1024)] },
  },
  "servers.readBundle": { bundle: bigBundle },
  "servers.addBundle": {
    name: name(API_LIMITS.upsertNameMaxChars),
    bundle: bigBundle,
    values: {},
  },
  "servers.tryBundle": {
    name: name(API_LIMITS.upsertNameMaxChars),
    bundle: bigBundle,
    values: {},
  },
  "servers.remove": { name: name(API_LIMITS.serverNameMaxChars) },
  "servers.restart": { name: name(API_LIMITS.serverNameMaxChars) },
  "servers.tools": {
    name: name(API_LIMITS.serverNameMaxChars),
    after: Number.MAX_SAFE_INTEGER,
    limit: API_LIMITS.toolsPageMaxLimit,
  },
  "servers.setToolPolicy": {
    name: name(API_LIMITS.serverNameMaxChars),
    tool: name(API_LIMITS.toolNameMaxChars),
    allowed: true,
    private: true,
  },
  "servers.setAsk": { name: name(API_LIMITS.serverNameMaxChars), ask: true },
  "servers.held": {
    name: name(API_LIMITS.serverNameMaxChars),
    after: Number.MAX_SAFE_INTEGER,
    limit: API_LIMITS.heldPageMaxLimit,
  },
  "servers.review": {
    name: name(API_LIMITS.serverNameMaxChars),
    decision: "reject",
    tools: Array.from({ length: API_LIMITS.reviewMaxTools }, (_, i) => ({
      tool: `${i}`.padEnd(API_LIMITS.toolNameMaxChars, "t"),
      hash: "0".repeat(64),
    })),
  },
  "clients.list": { limit: API_LIMITS.clientsPageMaxLimit },
  "clients.snippets": {},
  "clients.claudeDesktopPreview": {},
  // No cap of its own: as long as one browser message may be.
  "clients.claudeDesktopApply": { expectedBefore: "x".repeat(1_900_000) },
  "approvals.list": {},
  "approvals.answer": { id: name(APPROVAL_LIMITS.idMaxChars), answer: "allow_run" },
  "taint.list": { limit: API_LIMITS.taintPageMaxLimit },
  "taint.reset": { client: name(API_LIMITS.clientKeyMaxChars) },
  "settings.get": {},
  "settings.save": {},
  "audit.query": { filter: {}, limit: AUDIT_LIMITS.queryMaxLimit },
  "audit.run": { runId: "run-7" },
  "audit.verify": {},
  "workspaces.list": {},
  "workspaces.files": { client: name(HOST_LIMITS.clientNameMaxChars), workspace: "w" },
  "workspaces.read": {
    client: name(HOST_LIMITS.clientNameMaxChars),
    workspace: "w",
    path: name(WORKSPACE_LIMITS.pathMaxChars),
    offset: Number.MAX_SAFE_INTEGER,
    fileId: name(64),
  },
  "workspaces.upload": {
    client: name(HOST_LIMITS.clientNameMaxChars),
    workspace: name(WORKSPACE_LIMITS.nameMaxChars),
    path: name(WORKSPACE_LIMITS.pathMaxChars),
    offset: 0,
    data: "A".repeat(Math.ceil(WORKSPACE_LIMITS.transferChunkBytes / 3) * 4),
    last: false,
  },
  "workspaces.deleteFile": {
    client: name(HOST_LIMITS.clientNameMaxChars),
    workspace: "w",
    path: name(WORKSPACE_LIMITS.pathMaxChars),
  },
  "workspaces.delete": { client: name(HOST_LIMITS.clientNameMaxChars), workspace: "w" },
  "attachments.read": { uri: `codemode://files/${"0".repeat(32)}/${name(4_000)}` },
};

describe("every API channel with its largest input (browser mode)", () => {
  const home = makeHome("codemode-api-largest-");
  let daemon: UiDaemon;
  let ws: WebSocket;
  const pending = new Map<number, (raw: string) => void>();

  const request = (id: number, channel: ApiChannel, params: unknown): Promise<string> =>
    new Promise((resolve) => {
      pending.set(id, resolve);
      ws.send(JSON.stringify({ type: "request", id, channel, params }));
    });

  beforeAll(async () => {
    assertHostBuilt();
    const log = await AuditLog.open({
      dir: path.join(home, "audit"),
      fsync: false,
      checkpoint: { file: path.join(home, CHECKPOINT_FILE) },
    });
    const code = "#".repeat(AUDIT_LIMITS.codeMaxBytes);
    for (let i = 0; i < BIG_RUNS; i += 1) {
      await log.append({
        kind: "run_started",
        runId: `run-${i}`,
        client: "claude",
        code,
        codeBytes: code.length,
        codeHash: sha256(code),
      });
      // Ended, so the daemon's start writes no run_abandoned entries on top of them.
      await log.append({
        kind: "run_finished",
        runId: `run-${i}`,
        client: "claude",
        durationMs: 12,
        calls: 0,
        exitCode: 0,
        stopped: null,
        timedOut: false,
        truncated: false,
        error: null,
        stdoutBytes: 0,
        stderrBytes: 0,
      });
    }
    await log.close();
    // A command that is not there: each server fails at once, without starting a process.
    writeServers(
      home,
      Object.fromEntries(
        Array.from({ length: BIG_SERVERS }, (_, i) => [
          `big${i}`,
          {
            command: path.join(home, "no-such-server"),
            args: [String(i % 10).repeat(BIG_ARG_CHARS)],
          },
        ]),
      ),
    );
    // No engine: image.build and the sandbox answer at once, and nothing reaches a shared one.
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${path.join(home, "no-docker.sock")}`;
    try {
      daemon = await startUiDaemon(home);
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
    ws = new WebSocket(`ws://127.0.0.1:${daemon.port}/api`, {
      headers: { Origin: daemon.origin },
      maxPayload: 256 * 1024 * 1024,
    });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const welcomed = new Promise((resolve) => ws.once("message", resolve));
    ws.send(JSON.stringify({ type: "hello", ticket: await daemon.ticket() }));
    await welcomed;
    ws.on("message", (data: Buffer) => {
      const raw = data.toString("utf8");
      const message = JSON.parse(raw) as { type: string; id?: number };
      if (message.type === "response" && message.id !== undefined) {
        pending.get(message.id)?.(raw);
        pending.delete(message.id);
      }
    });
  }, 120_000);

  afterAll(async () => {
    ws?.close();
    try {
      if (daemon) expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await cleanUpHosts();
    }
  });

  it("names every channel of the contract", () => {
    expect(Object.keys(LARGEST).sort()).toEqual([...API_CHANNELS].sort());
  });

  // Before the sweep below: its config.save replaces the servers with none.
  it("serves a server list past the reply cap in pages", async () => {
    // The server list is past the cap whole; its first page is not, and says where to go on.
    const servers = JSON.parse(
      await request(1_000_000, "servers.list", LARGEST["servers.list"]),
    ) as {
      response: ApiResponse<{ items: unknown[]; total: number; next: number | null }>;
    };
    expect(servers.response).toMatchObject({ ok: true, value: { total: BIG_SERVERS } });
    if (servers.response.ok) {
      const { items, next } = servers.response.value;
      expect(items.length).toBeGreaterThan(0);
      expect(items.length).toBeLessThan(BIG_SERVERS);
      expect(next).toBe(items.length);
      expect(JSON.stringify(servers.response.value).length).toBeLessThan(
        LIST_PAGE_MAX_CHARS + 2 * BIG_ARG_CHARS,
      );
    }
  }, 120_000);

  it("answers each within the response cap, as data, and stays up", async () => {
    const answers: Record<string, { ok: boolean; chars: number; code?: string }> = {};
    let id = 1;
    for (const channel of API_CHANNELS) {
      const raw = await request(id, channel, LARGEST[channel]);
      id += 1;
      const { response } = JSON.parse(raw) as { response: ApiResponse<unknown> };
      answers[channel] = {
        ok: response.ok,
        chars: raw.length,
        ...(response.ok ? {} : { code: response.error.code }),
      };
      // The message's own framing is a few dozen characters over the reply's.
      expect(raw.length, channel).toBeLessThan(API_LIMITS.responseMaxChars + 100);
    }
    // A full page of the biggest entries is cut by size, not refused, and says where to go on.
    const page = JSON.parse(await request(id, "audit.query", LARGEST["audit.query"])) as {
      response: ApiResponse<{ entries: unknown[]; nextBefore: number | null }>;
    };
    expect(page.response.ok).toBe(true);
    if (page.response.ok) {
      expect(page.response.value.entries.length).toBeGreaterThan(0);
      expect(page.response.value.entries.length).toBeLessThan(AUDIT_LIMITS.queryMaxLimit);
      expect(page.response.value.nextBefore).not.toBeNull();
    }
    for (const channel of ["servers.list", "clients.list", "taint.list"] as const) {
      expect(answers[channel], channel).toMatchObject({ ok: true });
    }
    expect(answers["config.parseSnippet"]).toMatchObject({ ok: true });
    expect(answers["app.info"]).toMatchObject({ ok: true });
    expect(daemon.stderr()).not.toMatch(/RangeError|FATAL|heap out of memory/);
  }, 120_000);
});
