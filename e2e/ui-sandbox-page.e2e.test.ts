// The Sandbox page as a person who never read the README meets it, in Chromium at 1280 and
// 800 px, light and dark: hints in plain words, a refused value seen and focused (not left
// under the fold beside a focused Save), edits not saved kept when one leaves the page (and a
// warning before the window closes on them), the sandboxes counted live while a real run goes
// through the shim, a plain list of what the sandbox blocks, and the audit log naming changed
// settings by their labels, and no figure of the user's limits before the settings arrive.
// Also the server form's warning for a secret too short to mask.
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { SECRET_LIMITS, SETTINGS_BOUNDS } from "../shared/limits.js";
import {
  descriptionOf,
  screenshotBothThemes,
  waitForText,
  waitUntil,
} from "../test-support/browser.js";
import { connectShim, toyServer, writeServers } from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { holdAnswers } from "../test-support/held-answers.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";
import { until } from "../test-support/wait.js";

const fx = await dockerOrSkip();

describe.skipIf(!fx)("the Sandbox page, for a person", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-sandbox-page-",
    docker: fx?.docker,
    prepare: (home) => writeServers(home, { toy: toyServer() }),
  });
  let shim: McpSession | undefined;

  afterAll(async () => {
    await shim?.close().catch(() => undefined);
  });

  const page = (): Page => ui.page;
  const field = (label: string): Locator => page().getByLabel(label, { exact: true });
  const saved = (): Record<string, unknown> => {
    const file = path.join(ui.home, "settings.json");
    return existsSync(file)
      ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>)
      : {};
  };
  const focusedId = (): Promise<string | null> =>
    page().evaluate(() => {
      const doc = (globalThis as unknown as { document: { activeElement: { id: string } | null } })
        .document;
      return doc.activeElement?.id ?? null;
    });
  /** Whether the control is in the page's scrolled view: under the header and any banner. */
  const inSight = async (control: Locator): Promise<boolean> => {
    const box = await control.boundingBox();
    const view = await page().locator("#content").boundingBox();
    return (
      box !== null && view !== null && box.y >= view.y && box.y + box.height <= view.y + view.height
    );
  };

  it("says what the sandbox blocks, in plain words, and its hints use no jargon", async () => {
    await ui.nav("Sandbox").click();
    const blocks = page().getByRole("list", { name: "What the sandbox blocks" });
    // The deadline's figure comes with the settings, which may arrive after the card first shows.
    const text = await waitForText(blocks, /cannot run longer than \d+ seconds/);
    for (const words of [
      /cannot reach the internet or your network/,
      /cannot see your files/,
      /256 MiB of memory/,
      /cannot run longer than \d+ seconds/,
    ]) {
      expect(text).toMatch(words);
    }
    const hint = await descriptionOf(field("Sandboxes kept ready"));
    expect(hint).toMatch(/so the next run begins at once/);
    // The sandboxes card has its words once its own request is answered (the limits form, read
    // above, has its own too): the whole page is read after both.
    await page().getByTestId("pool-counts").waitFor();
    expect(await page().locator(".page").innerText()).not.toMatch(
      /skips once there are two or more|warm pool/i,
    );
    await screenshotBothThemes(page(), "sandbox-page", { minHeight: 1800 });
  });

  it("counts the sandboxes live: ready, and running while a run goes on", async () => {
    const counts = page().getByTestId("pool-counts");
    const count = async (label: string): Promise<number> =>
      Number(await counts.locator("div", { hasText: label }).locator("dd").innerText());
    await waitUntil(
      () => count("Ready"),
      (n) => n >= 1,
      "a sandbox ready",
    );
    shim = await connectShim(ui.home, { name: "sandbox-page", version: "1" });
    const run = shim.run("import time\ntime.sleep(4)\nprint('done')");
    await waitUntil(
      () => count("Running code"),
      (n) => n === 1,
      "the run counted while it runs",
    );
    expect((await run).stdout).toBe("done\n");
    await waitUntil(
      () => count("Running code"),
      (n) => n === 0,
      "the run no longer counted",
    );
  });

  for (const width of [1280, 800]) {
    it(`at ${width} px, a refused value is shown and focused, not hidden under the fold`, async () => {
      await page().setViewportSize({ width, height: 700 });
      try {
        await ui.nav("Sandbox").click();
        const deadline = field("Time limit per run (seconds)");
        const { min, max } = SETTINGS_BOUNDS.deadlineSeconds;
        await deadline.fill(String(max + 1));
        await page().getByRole("button", { name: "Save limits" }).click();
        const deadlineId = await deadline.getAttribute("id");
        await waitUntil(focusedId, (id) => id === deadlineId, "the refused field focused");
        expect(await deadline.getAttribute("aria-invalid")).toBe("true");
        expect(await descriptionOf(deadline)).toContain(
          `Enter a whole number from ${min} to ${max}.`,
        );
        expect(await inSight(deadline)).toBe(true);
        // A field under Advanced: the fold opens and the field takes the focus.
        await deadline.fill(String(min));
        const days = field("Keep the audit log (days)");
        const advanced = page().locator("details.disclosure", { hasText: "Advanced" });
        const fold = (open: boolean) =>
          advanced.evaluate((d, to) => {
            (d as { open: boolean }).open = to;
          }, open);
        // Typed while the fold was open, then folded away before Save.
        await fold(true);
        await days.fill("0");
        await fold(false);
        await page().getByRole("button", { name: "Save limits" }).click();
        await waitUntil(
          async () => (await focusedId()) === (await days.getAttribute("id")),
          (same) => same,
          "the Advanced field focused",
        );
        expect(await inSight(days)).toBe(true);
        await page().getByRole("button", { name: "Discard changes" }).click();
      } finally {
        await page().setViewportSize({ width: 1280, height: 860 });
      }
    });
  }

  it("keeps edits not saved when one leaves the page, and says so", async () => {
    await ui.nav("Sandbox").click();
    await field("Tool calls per run").fill("150");
    await ui.nav("Servers").click();
    await ui.nav("Sandbox").click();
    await waitUntil(
      () => field("Tool calls per run").inputValue(),
      (v) => v === "150",
      "the edit kept",
    );
    await page().getByText("Your changes from before are still here, not saved yet").waitFor();
    await page().getByRole("button", { name: "Save limits" }).click();
    await page().getByText("Saved. New runs use these limits.").waitFor();
    expect(saved().maxCallsPerRun).toBe(150);
    expect(await page().getByText("Your changes from before are still here").count()).toBe(0);
  });

  it("says nothing untrue while its answers are on their way", async () => {
    // A window whose answers are slow: until they come, the page claims no figure and no state
    // (a default there would be untrue: the user saved 150 calls above, and Docker runs).
    const other = await ui.context.newPage();
    try {
      const answers = await holdAnswers(other, ["settings.get", "docker.status", "image.status"]);
      await other.goto(await ui.daemon.newLink());
      await ui.nav("Sandbox", other).click();
      await until(() => answers.held() >= 3, "the settings, Docker and the image asked for");
      const blocks = other.getByRole("list", { name: "What the sandbox blocks" });
      const before = await waitForText(blocks, /cannot run longer than its time limit/);
      expect(before).toMatch(/or make more tool calls than its limit/);
      expect(before).not.toMatch(/\d tool calls/);
      const image = other.getByRole("region", { name: "Sandbox image" });
      const imageText = await waitForText(image, /Checking the sandbox image/);
      expect(imageText).not.toMatch(/Start Docker first|Takes a few minutes/);
      answers.release();
      await waitForText(
        blocks,
        /cannot run longer than \d+ seconds or make more than 150 tool calls/,
      );
    } finally {
      await other.close();
    }
  });

  it("asks before the window closes on edits not saved", async () => {
    const other = await ui.context.newPage();
    await other.goto(await ui.daemon.newLink());
    await other
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Sandbox" })
      .click();
    await other.getByLabel("Runs at the same time", { exact: true }).fill("3");
    const asked = new Promise<string>((resolve) =>
      other.once("dialog", (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      }),
    );
    await other.close({ runBeforeUnload: true });
    expect(await asked).toBe("beforeunload");
    // Dismissed: the window stays open with the edit in it.
    expect(await other.getByLabel("Runs at the same time", { exact: true }).inputValue()).toBe("3");
    await other.getByRole("button", { name: "Discard changes" }).click();
    await other.close();
  });

  it("the audit log names a changed setting by its label, not its key", async () => {
    await ui.nav("Audit log").click();
    const row = page()
      .getByRole("listbox", { name: "Audit entries" })
      .getByRole("option")
      .filter({ hasText: "Settings changed" })
      .first();
    const text = await waitForText(row, /Tool calls per run: 200 → 150/);
    expect(text).not.toContain("maxCallsPerRun");
  });

  it(`the server form warns when a secret is shorter than ${SECRET_LIMITS.maskMinChars} characters`, async () => {
    await ui.nav("Servers").click();
    await page().getByRole("button", { name: "Add server" }).click();
    await page().getByRole("button", { name: "Blank form" }).click();
    const dialog = page().getByRole("dialog", { name: "Add server" });
    await dialog.getByRole("button", { name: "Add variable" }).click();
    await dialog.getByLabel("Variable 1", { exact: true }).fill("API_TOKEN");
    await dialog.getByLabel("Value 1", { exact: true }).fill("abc");
    const warning = dialog.getByText(/cannot hide a value this short/);
    expect(await warning.count()).toBe(0);
    await dialog.getByRole("switch", { name: "Keep row 1 secret" }).click();
    await warning.waitFor();
    await dialog.getByLabel("Value 1", { exact: true }).fill("a-long-enough-secret");
    await waitUntil(
      () => warning.count(),
      (n) => n === 0,
      "no warning for a long secret",
    );
    await page().keyboard.press("Escape");
  });
});
