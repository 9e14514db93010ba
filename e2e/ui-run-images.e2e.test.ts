// A real MCP client (the SDK's Client over `codemode shim`) runs real
// matplotlib code in the real sandbox through `codemode daemon --ui`; the figure comes back as
// an MCP image content item after the text, the audit log keeps its hash and size (never the
// bytes), and the Audit page's run detail shows it as a thumbnail in Chromium.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runResultIn } from "../shared/run-result.js";
import { pngSize } from "../electron/host/sandbox/runner/image-receiver.js";
import { runPythonText } from "../electron/host/core/engine/run-python-content.js";
import { auditEntries, auditFiles, connectShim } from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { ARTIFACTS_DIR, waitUntil } from "../test-support/browser.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";

const fx = await dockerOrSkip();

/** What the test reads of the <img> in the page (no DOM types in the e2e config). */
interface ThumbImage {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
  clientWidth: number;
}
const CLIENT = "images-client";

const PLOT = [
  "import matplotlib.pyplot as plt",
  "plt.plot([1, 2, 3, 4], [3, 1, 4, 1])",
  "plt.title('quarterly')",
  "print('plotted')",
  "plt.show()",
].join("\n");

describe.skipIf(!fx)("images: back to the model, and on the Audit page", () => {
  // The last test opens the page, once the run is in the log.
  const ui = useUiPage({ homePrefix: "codemode-ui-images-", docker: fx?.docker, open: false });
  const { home } = ui;
  let client: McpSession;
  let png: Buffer;
  let runId: string;

  beforeAll(async () => {
    client = await connectShim(home, { name: CLIENT, version: "1" });
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
  });

  it("run_python returns the figure as an image content item after the text", async () => {
    const result = await client.callTool("run_python", { code: PLOT });
    expect(result.isError).toBeFalsy();
    const content = result.content as {
      type: string;
      text?: string;
      data?: string;
      mimeType?: string;
    }[];
    expect(content.map((item) => item.type)).toEqual(["text", "image"]);
    expect(content[1]!.mimeType).toBe("image/png");
    png = Buffer.from(content[1]!.data!, "base64");
    expect(png.toString("base64")).toBe(content[1]!.data); // strict base64, nothing dropped
    const size = pngSize(png);
    expect(size).not.toBeNull();

    const structured = runResultIn(result)!;
    expect(structured.stdout).toBe("plotted\n");
    const sha256 = createHash("sha256").update(png).digest("hex");
    expect(structured.images).toEqual([
      { name: "figure-1.png", bytes: png.length, sha256, width: size!.width, height: size!.height },
    ]);
    // The text item is what the model reads: the output, then the image's name and size.
    expect(content[0]!.text).toBe(runPythonText(structured));
    expect(content[0]!.text).toContain(`figure-1.png ${size!.width}x${size!.height}`);
  });

  it("the audit log records the image's hash and size, never its bytes", async () => {
    const sha256 = createHash("sha256").update(png).digest("hex");
    const finished = (await waitUntil(
      () => Promise.resolve(auditEntries(home, "run_finished", CLIENT)[0]),
      (entry) => entry !== undefined,
      "the run's end in the log",
    ))!;
    expect(finished.images).toEqual([{ name: "figure-1.png", bytes: png.length, sha256 }]);
    runId = finished.runId;
    const logged = auditFiles(home)
      .map((file) => readFileSync(file, "utf8"))
      .join("");
    // Any 64 characters from the middle of the base64 would be there if the bytes were logged.
    const base64 = png.toString("base64");
    expect(logged).not.toContain(base64.slice(base64.length / 2, base64.length / 2 + 64));
  });

  it("the Audit page's run detail shows the image as a thumbnail", async () => {
    await ui.page.goto(await ui.daemon.newLink());
    await ui.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Audit log" })
      .click();
    const rows = ui.page.getByRole("listbox", { name: "Audit entries" }).getByRole("option");
    // The row says the run attached an image.
    await rows.filter({ hasText: "Run finished" }).filter({ hasText: "1 image" }).first().click();
    const detail = ui.page.getByRole("complementary", { name: /^Run/ });
    await detail.getByRole("heading", { level: 2 }).filter({ hasText: runId }).waitFor();
    const thumb = detail.getByRole("img", { name: "figure-1.png" });
    await thumb.waitFor();
    // Decoded by the browser: the PNG the model got, at its real size, shown scaled down.
    const shown = (await waitUntil(
      () =>
        thumb.evaluate((element) => {
          const img = element as unknown as ThumbImage;
          return img.complete && img.naturalWidth > 0
            ? { natural: [img.naturalWidth, img.naturalHeight], width: img.clientWidth }
            : null;
        }),
      (value) => value !== null,
      "the thumbnail to load",
    ))!;
    const size = pngSize(png)!;
    expect(shown.natural).toEqual([size.width, size.height]);
    expect(shown.width).toBeLessThanOrEqual(200);
    expect(await detail.innerText()).toMatch(/Images\s*\(1\)[\s\S]*figure-1\.png · \d+×\d+/);
    await thumb.scrollIntoViewIfNeeded();
    await ui.page.screenshot({ path: path.join(ARTIFACTS_DIR, "ui-run-images.png") });
  });
});
