// The workspaces on the Sandbox page and attached files on the Audit page, in Chromium against
// `codemode daemon --ui`: a run's workspace is listed with its files; a file downloads byte for
// byte; files chosen and dropped onto the page are there for the client's next run; a file and then the
// workspace are deleted; the Audit page downloads the file a run attached.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runResultIn } from "../shared/run-result.js";
import { auditEntries, connectShim } from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { ARTIFACTS_DIR, waitUntil } from "../test-support/browser.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";

const fx = await dockerOrSkip();
const CLIENT = "ui-ws-client";
const REPORT = "quarter,total\nq1,10\nq2,12\n";

describe.skipIf(!fx)("workspaces on the Sandbox page, attached files on the Audit page", () => {
  const ui = useUiPage({ homePrefix: "codemode-ui-ws-", docker: fx?.docker, open: false });
  let client: McpSession;

  beforeAll(async () => {
    client = await connectShim(ui.home, { name: CLIENT, version: "1" });
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
  });

  const run = async (code: string) => {
    const answer = await client.callTool("run_python", { code, workspace: "notes" });
    return runResultIn(answer)!;
  };

  it("lists a run's workspace with its files, downloads one, takes a chosen and a dropped file", async () => {
    const wrote = await run(
      `open('/workspace/report.csv','w').write(${JSON.stringify(REPORT)})\nattach('/workspace/report.csv')`,
    );
    expect(wrote.error).toBeNull();
    const { page } = ui;
    await page.goto(await ui.daemon.newLink());
    await ui.nav("Sandbox").click();
    const row = page.getByRole("listitem", { name: `notes of ${CLIENT}` });
    await row.getByText(/1 file · 26 bytes/).waitFor();
    await row.getByRole("button", { name: "notes" }).click();
    const file = row.getByRole("listitem", { name: "report.csv" });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      file.getByRole("button", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("report.csv");
    expect(readFileSync(await download.path(), "utf8")).toBe(REPORT);

    await row.locator("input[type=file]").setInputFiles({
      name: "extra.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("from the page"),
    });
    await row.getByRole("listitem", { name: "extra.txt" }).waitFor();
    // A file dragged from the desktop arrives as a drop whose DataTransfer holds it.
    const dragged = await page.evaluateHandle(
      "(() => { const data = new DataTransfer(); data.items.add(new File(['north,3\\n'], 'dropped.csv', { type: 'text/csv' })); return data; })()",
    );
    await row.dispatchEvent("dragenter", { dataTransfer: dragged });
    await row.dispatchEvent("dragover", { dataTransfer: dragged });
    await waitUntil(
      () => row.getAttribute("class"),
      (names) => (names ?? "").includes("workspace-drop"),
      "the row to show it takes the drop",
    );
    await row.dispatchEvent("drop", { dataTransfer: dragged });
    await row.getByRole("listitem", { name: "dropped.csv" }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, "ui-workspaces.png") });
    const read = await run(
      "print(open('/workspace/extra.txt').read())\nprint(open('/workspace/dropped.csv').read(), end='')",
    );
    expect(read.stdout).toBe("from the page\nnorth,3\n");
    const added = await waitUntil(
      () => Promise.resolve(auditEntries(ui.home, "workspace_edited", CLIENT)),
      (entries) => entries.length > 1,
      "the uploads in the log",
    );
    expect(added).toMatchObject([
      { action: "file_added", by: "ui", path: "extra.txt", bytes: 13 },
      { action: "file_added", by: "ui", path: "dropped.csv", bytes: 8 },
    ]);

    await page.reload();
    await row.getByRole("button", { name: "notes" }).click();
    await row
      .getByRole("listitem", { name: "extra.txt" })
      .getByRole("button", { name: "Delete" })
      .click();
    await waitUntil(
      () => row.getByRole("listitem", { name: "extra.txt" }).count(),
      (count) => count === 0,
      "the deleted file to leave the list",
    );
    await row.getByRole("button", { name: "Delete workspace" }).click();
    await row.getByRole("button", { name: "Delete notes and its files" }).click();
    await page.getByText("No workspaces yet").waitFor();
  });

  it("the Audit page lists the file the run attached and downloads it", async () => {
    const { page } = ui;
    await ui.nav("Audit log").click();
    const rows = page.getByRole("listbox", { name: "Audit entries" }).getByRole("option");
    await rows.filter({ hasText: "Run finished" }).filter({ hasText: "1 file" }).first().click();
    const detail = page.getByRole("complementary", { name: /^Run/ });
    await detail.getByText("Attached files").waitFor();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      detail.getByRole("button", { name: "Download report.csv" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("report.csv");
    expect(readFileSync(await download.path(), "utf8")).toBe(REPORT);
  });
});
