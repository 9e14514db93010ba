// The run's receipt end to end: a real `codemode daemon --ui` with the real toy tool server, a
// real Docker run through the shim that makes several calls, and a classic client (the SDK's
// Client talking to the same toy server directly) making the same calls one by one. The
// run_finished entry must record exactly the bytes the shim's client received and the bytes
// the classic client received, and the Audit page must show the saving per run and in total.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiptOf, totalReceipt } from "../shared/run-receipt.js";
import { receiptText, totalReceiptText } from "../renderer/src/lib/receipt-text.js";
import { auditEntries, connectShim, toyServer, writeServers } from "../test-support/daemon.js";
import { ARTIFACTS_DIR, waitUntil } from "../test-support/browser.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";
import { runResultIn } from "../shared/run-result.js";
import type { RunFinishedEntry } from "../shared/audit-entry.js";

const fx = await dockerOrSkip();

const CLIENT = "receipt-e2e";
// Three large results, one with text that JSON escapes and multi-byte characters.
const CALLS: [string, Record<string, unknown>][] = [
  ["big", { bytes: 20_000 }],
  ["big", { bytes: 30_000 }],
  ["echo", { text: 'héllo "quoted"\n\ttab 😀' }],
  ["big", { bytes: 10_000 }],
];
const CODE = [
  "sizes = []",
  ...CALLS.map(([tool, args]) => `sizes.append(len(await toy__${tool}(${JSON.stringify(args)})))`),
  "print(sum(sizes))",
].join("\n");

const contentBytes = (result: CallToolResult): number =>
  Buffer.byteLength(JSON.stringify(result.content), "utf8");

describe.skipIf(fx === null)("run receipt (real daemon, Docker, toy server, Chromium)", () => {
  // The last test opens the page, once the run is in the log.
  const ui = useUiPage({
    homePrefix: "codemode-ui-receipt-",
    docker: fx?.docker,
    open: false,
    prepare: (home) => writeServers(home, { toy: toyServer() }),
  });
  const { home } = ui;
  let shim: McpSession;
  let receipt: { resultBytes: number; oneByOneBytes: number; runId: string };
  let finishedEntry: RunFinishedEntry;

  beforeAll(async () => {
    shim = await connectShim(home, { name: CLIENT, version: "1" });
  });

  afterAll(async () => {
    await shim?.close().catch(() => undefined);
  });

  it("run_finished records what the client got and what the calls cost one by one", async () => {
    // The classic client: the same calls, straight to the same server, one at a time.
    const server = toyServer() as { command: string; args: string[] };
    const classic = new Client({ name: "classic", version: "1" });
    await classic.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
    let oneByOne = 0;
    try {
      for (const [name, args] of CALLS) {
        oneByOne += contentBytes(
          (await classic.callTool({ name, arguments: args })) as CallToolResult,
        );
      }
    } finally {
      await classic.close();
    }

    const result = await shim.callTool("run_python", { code: CODE });
    expect(result.isError).toBeFalsy();
    const structured = runResultIn(result)!;
    expect(structured.calls).toBe(CALLS.length);

    const finished = (await waitUntil(
      () => Promise.resolve(auditEntries(home, "run_finished", CLIENT)[0]),
      (entry) => entry !== undefined,
      "the run's end in the log",
    ))!;
    expect(finished.calls).toBe(CALLS.length);
    expect(finished.resultBytes).toBe(contentBytes(result));
    expect(finished.oneByOneBytes).toBe(oneByOne);
    expect(finished.resultBytes!).toBeLessThan(oneByOne / 50);
    finishedEntry = finished;
    receipt = {
      resultBytes: finished.resultBytes!,
      oneByOneBytes: finished.oneByOneBytes!,
      runId: finished.runId,
    };
  });

  it("the Audit page shows the saving for the run and over the loaded runs", async () => {
    await ui.page.goto(await ui.daemon.newLink());
    await ui.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Audit log" })
      .click();
    const expected = receiptText(receiptOf(finishedEntry)!);
    // In words, no percentage: the model read about so much less than one call at a time.
    expect(expected).toMatch(/^About \d+(\.\d)? KB less for the model to read than calling/);
    const total = ui.page.getByTestId("receipt-total");
    await total.waitFor();
    expect((await total.innerText()).replace(/\s+/g, " ").trim()).toBe(
      `· ${totalReceiptText(totalReceipt([finishedEntry])!)}`,
    );
    const rows = ui.page.getByRole("listbox", { name: "Audit entries" }).getByRole("option");
    await rows.filter({ hasText: "Run finished" }).first().click();
    const detail = ui.page.getByRole("complementary", { name: /^Run/ });
    await detail.getByRole("heading", { level: 2 }).filter({ hasText: receipt.runId }).waitFor();
    const shown = detail.getByTestId("run-receipt");
    expect((await shown.innerText()).replace(/\s+/g, " ").trim()).toBe(expected);
    await ui.page.screenshot({ path: path.join(ARTIFACTS_DIR, "ui-run-receipt.png") });
  });
});
