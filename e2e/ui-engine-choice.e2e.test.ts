// The Sandbox page's container engine card, used as a person would: `codemode daemon --ui`, Debian's
// Chromium, the machine's Docker and a Podman service of the test's own, a real MCP client over
// the shim. The card lists the places looked at and the engine in use; a URL typed there is saved
// as sandboxEngine, the next run goes to that engine, and its audit entries name it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Locator } from "playwright-core";
import { waitForText, waitUntil } from "../test-support/browser.js";
import { holdAnswers } from "../test-support/held-answers.js";
import { until } from "../test-support/wait.js";
import { auditEntries, connectShim, homeContainers } from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import {
  podmanInstalled,
  startPrivatePodman,
  type PrivatePodman,
} from "../test-support/private-podman.js";
import { useUiPage } from "../test-support/ui-page.js";

const fx = await dockerOrSkip();
if (fx && !podmanInstalled() && process.env.CI === "true") {
  throw new Error("podman is required in CI (.ci/run installs it)");
}

describe.skipIf(!fx || !podmanInstalled())("the Sandbox page's container engine card", () => {
  const ui = useUiPage({ homePrefix: "codemode-ui-engine-", docker: fx?.docker });
  let podman: PrivatePodman;
  let shim: McpSession;

  beforeAll(async () => {
    podman = await startPrivatePodman();
    await podman.loadImage(fx!.docker, fx!.image);
    await ui.nav("Sandbox").click();
    shim = await connectShim(ui.home, { name: "e2e-engine-choice", version: "1" });
  });

  afterAll(async () => {
    await shim?.close().catch(() => undefined);
    await podman?.destroy();
  });

  const card = () =>
    ui.page.locator("section", { has: ui.page.getByRole("heading", { name: "Container engine" }) });
  const saved = (): Record<string, unknown> => {
    const file = path.join(ui.home, "settings.json");
    return existsSync(file)
      ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>)
      : {};
  };
  /** A run's stdout once the new engine runs code (one refused while it is readied is tried again). */
  const runWhenReady = async (code: string): Promise<string> => {
    let stdout: string | null = null;
    await until(
      async () => {
        try {
          const result = await shim.run(code);
          stdout = result.error === null ? result.stdout : null;
        } catch {
          stdout = null;
        }
        return stdout !== null;
      },
      "a run to go through on the chosen engine",
      120_000,
    );
    return stdout ?? "";
  };
  const urlField = () => card().getByLabel("Or an engine URL (unix://, tcp:// with TLS, ssh://)");
  /** The text of the option a select shows. */
  const shownOption = (select: Locator): Promise<string | null> =>
    select.evaluate(
      (el) =>
        (el as unknown as { selectedOptions: { textContent: string | null }[] }).selectedOptions[0]
          ?.textContent ?? null,
    );

  it("lists where it looked and marks the engine in use", async () => {
    const table = card().getByRole("table", { name: "Engines looked for" });
    await table.waitFor();
    const current = table.locator('tr[aria-current="true"]');
    await until(
      async () => (await current.count()) === 1,
      "the engine in use to be marked",
      60_000,
    );
    expect(await current.textContent()).toMatch(/Docker \d/);
    expect(await table.textContent()).toContain("Podman");
  });

  it("a mistyped engine is refused before it is saved", async () => {
    await urlField().fill("my engine");
    await card().getByText("must be an engine's name").waitFor();
    expect(await card().getByRole("button", { name: "Use this engine" }).isDisabled()).toBe(true);
  });

  it("a URL typed there is saved, the next run goes to that engine, and the audit log names it", async () => {
    await urlField().fill(podman.runc.url);
    await card().getByRole("button", { name: "Use this engine" }).click();
    await until(() => saved().sandboxEngine === podman.runc.url, "the saved engine", 60_000);
    await card().getByText(`Code Mode uses the engine you chose: ${podman.runc.url}.`).waitFor();
    // The engine is switched in the background: a run meanwhile waits for its look, and its
    // start is recorded once the look has said which engine it goes to.
    expect(await runWhenReady("print('where am I')")).toBe("where am I\n");
    expect(await homeContainers(podman.runc.docker, ui.home)).not.toEqual([]);
    expect(auditEntries(ui.home, "run_started").at(-1)?.engine).toBe(podman.runc.url);
    expect(auditEntries(ui.home, "run_finished").at(-1)?.engine).toBe(podman.runc.url);
  });

  it("names no engine choice before the settings say which it is", async () => {
    // A window whose settings answer is slow: "Find one" there would be untrue (one is chosen).
    const other = await ui.context.newPage();
    try {
      const answers = await holdAnswers(other, ["settings.get"]);
      await other.goto(await ui.daemon.newLink());
      await ui.nav("Sandbox", other).click();
      await until(() => answers.held() > 0, "the settings asked for");
      const otherCard = other.locator("section", {
        has: other.getByRole("heading", { name: "Container engine" }),
      });
      const said = await waitForText(otherCard.locator("p.card-text"), /\S/, "the card's sentence");
      expect(said).not.toMatch(/DOCKER_HOST|first engine that answers/);
      expect(said).toMatch(/Reading your choice of engine/);
      const use = otherCard.getByLabel("Use", { exact: true });
      expect(await shownOption(use)).toBe("Reading your choice…");
      answers.release();
      await otherCard
        .getByText(`Code Mode uses the engine you chose: ${podman.runc.url}.`)
        .waitFor();
      await waitUntil(
        () => shownOption(use),
        (text) => text === podman.runc.url,
        "the chosen engine in Use",
      );
    } finally {
      await other.close();
    }
  });

  it("Find one goes back to looking, and runs go to the machine's Docker again", async () => {
    await card().getByLabel("Use", { exact: true }).selectOption("");
    await until(() => !saved().sandboxEngine, "the choice to be dropped", 60_000);
    // The file is in place before the save is applied (its folder is synced in between): the
    // page says what is chosen once the host has switched, and runs go to the new choice then.
    await card().getByText("else the first engine that answers.", { exact: false }).waitFor();
    expect(await runWhenReady("print(1)")).toBe("1\n");
    expect(auditEntries(ui.home, "run_finished").at(-1)?.engine).toContain("docker");
  });
});
