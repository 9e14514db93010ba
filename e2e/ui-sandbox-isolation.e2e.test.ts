// The Sandbox page's isolation choice, clicked as a user would: `codemode daemon --ui` as a real
// process, Debian's Chromium, the shared engine (runc and gVisor's runsc registered) and a real
// MCP client over `codemode shim`. Choosing "Strong (gVisor)" makes the next run, warm container
// or not, run on gVisor (its kernel reports 4.4.0) and the audit log names runsc for it; back to
// "Standard (runc)", the next run is on the host's kernel again. A second daemon on a stand-in
// engine that offers runc only shows how to get gVisor instead of offering it.
import os from "node:os";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { auditEntries, connectShim, makeHome } from "../test-support/daemon.js";
import { describeOnRunsc, dockerOnRuntimes } from "../test-support/docker.js";
import {
  startUiDaemon,
  UI_TIMEOUT_MS,
  waitForText,
  type UiDaemon,
} from "../test-support/browser.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { startRuncOnlyEngine, type RuncOnlyEngine } from "../test-support/runc-only-engine.js";
import { useUiPage } from "../test-support/ui-page.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;

const CLIENT = "e2e-isolation";
const KERNEL = "import os\nprint(os.uname().release)";

describeOnRunsc(docker, "the Sandbox page's isolation choice", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-isolation-",
    docker: fx?.docker,
    context: { locale: "en-US" },
  });
  const { home } = ui;
  let shim: McpSession;

  const isolation = (p: Page): Locator => p.getByLabel("Isolation", { exact: true });

  const choose = async (label: string): Promise<void> => {
    await isolation(ui.page).selectOption({ label });
    await ui.page.getByRole("button", { name: "Save limits" }).click();
    await ui.page.getByText("Saved. New runs use these limits.").waitFor();
  };

  beforeAll(async () => {
    await ui.nav("Sandbox").click();
    shim = await connectShim(home, { name: CLIENT, version: "1.0.0" });
  });

  it("offers standard and strong isolation, standard chosen", async () => {
    const select = isolation(ui.page);
    await select.waitFor();
    expect(await select.inputValue()).toBe("runc");
    // The engine's runtimes arrive after the form: strong is offered once they say runsc.
    await ui.page.getByText("Strong puts one more wall").waitFor();
    const options = select.locator("option");
    expect(await options.allInnerTexts()).toEqual(["Standard (runc)", "Strong (gVisor)"]);
    expect(await options.nth(1).isDisabled()).toBe(false);
    expect((await shim.run(KERNEL)).stdout).toBe(`${os.release()}\n`);
  });

  it("strong: the next run is on gVisor, and the audit log says runsc", async () => {
    await choose("Strong (gVisor)");
    const settings = JSON.parse(readFileSync(path.join(home, "settings.json"), "utf8")) as {
      sandboxRuntime: string;
    };
    expect(settings.sandboxRuntime).toBe("runsc");
    // Whether a warm runc container was ready by now depends on timing; that one is never
    // used after the switch is pinned by sandbox-runtime.docker.test.ts.
    expect((await shim.run(KERNEL)).stdout).toBe("4.4.0\n");
    const started = auditEntries(home, "run_started", CLIENT);
    const finished = auditEntries(home, "run_finished", CLIENT);
    expect(started.map((e) => e.runtime)).toEqual(["runc", "runsc"]);
    expect(finished.map((e) => e.runtime)).toEqual(["runc", "runsc"]);
  });

  it("standard again: the next run is on the host's kernel", async () => {
    await ui.page.reload();
    await ui.nav("Sandbox").click();
    expect(await isolation(ui.page).inputValue()).toBe("runsc");
    await choose("Standard (runc)");
    expect((await shim.run(KERNEL)).stdout).toBe(`${os.release()}\n`);
    expect(auditEntries(home, "run_started", CLIENT).map((e) => e.runtime)).toEqual([
      "runc",
      "runsc",
      "runc",
    ]);
  });

  it("on an engine without runsc, strong is not offered and the page says how to get it", async () => {
    let engine: RuncOnlyEngine | null = null;
    let other: UiDaemon | null = null;
    try {
      engine = await startRuncOnlyEngine();
      const otherHome = makeHome("codemode-ui-no-gvisor-");
      other = await startUiDaemon(otherHome, undefined, { DOCKER_HOST: engine.dockerHost });
      const otherPage = await ui.browser.newPage({ locale: "en-US" });
      otherPage.setDefaultTimeout(UI_TIMEOUT_MS);
      await otherPage.goto(await other.newLink());
      await ui.nav("Sandbox", otherPage).click();
      const hint = otherPage.getByTestId("gvisor-missing");
      await waitForText(hint, /apt install runsc/, "how to install gVisor on Linux");
      await waitForText(
        hint,
        /Docker Desktop on macOS and\s+Windows does not offer gVisor/,
        "the Docker Desktop note",
      );
      expect(await isolation(otherPage).locator("option").nth(1).isDisabled()).toBe(true);
      await otherPage.close();
    } finally {
      if (other) expect(await other.stop()).toEqual({ code: 0, signal: null });
      await engine?.close();
    }
  });
});
