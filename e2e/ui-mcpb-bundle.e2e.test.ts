// "Add from a .mcpb file" the way a non-developer does it: `codemode daemon --ui` as a real
// process, Debian's Chromium, a real bundle packed by `mcpb pack` chosen in the file field
// (its bytes read by the page and sent through the API), the bundle's one secret setting
// typed, tried, and the server added. It becomes ready with its tool, which then runs from
// run_python in Docker through a real MCP client. A hostile bundle is refused on the page
// and writes nothing; removing the server on the page deletes its unpacked folder.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { connectShim, makeHome, toyServer, writeServers } from "../test-support/daemon.js";
import { ARTIFACTS_DIR, UI_TIMEOUT_MS } from "../test-support/browser.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { GREETER_MANIFEST, packGreeterBundle } from "../test-support/mcpb-fixture.js";
import { useUiPage } from "../test-support/ui-page.js";
import { buildZip } from "../test-support/zip-builder.js";

const fx = await dockerOrSkip();

/** The bundled server starts with node: quick, but the first start shares 2 busy cores. */
const START_TIMEOUT_MS = 30_000;

describe.skipIf(!fx)("adding an MCP Bundle (browser UI)", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-mcpb-",
    docker: fx?.docker,
    prepare: (home) => {
      assertToyServerBuilt();
      writeServers(home, { toy: toyServer() });
    },
  });
  const { home } = ui;

  const saved = (): Record<string, Record<string, unknown>> =>
    (
      JSON.parse(readFileSync(path.join(home, "servers.json"), "utf8")) as {
        mcpServers: Record<string, Record<string, unknown>>;
      }
    ).mcpServers;
  const folders = (): string[] => {
    const dir = path.join(home, "bundles");
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  const openBundleDialog = async () => {
    await ui.page.goto(`${ui.daemon.origin}/#/servers`);
    await ui.page.getByRole("button", { name: "Add server" }).click();
    await ui.page
      .getByRole("dialog", { name: "Add server" })
      .getByRole("button", { name: "Add from a .mcpb file" })
      .click();
    return ui.page.getByRole("dialog", { name: "Add from a .mcpb file" });
  };

  beforeAll(async () => {
    await ui.page.waitForURL((url) => url.hash.startsWith("#/servers"));
  });

  it("adds a bundle from its file, asking for its secret, and its tool runs from run_python", async () => {
    const dialog = await openBundleDialog();
    await dialog.getByLabel("Bundle file").setInputFiles(packGreeterBundle());
    await dialog.getByText("Greeter 1.0.0").waitFor();
    // Only what the bundle declares: its name, the secret key (masked) and the greeting.
    const key = dialog.getByLabel("API key");
    expect(await key.getAttribute("type")).toBe("password");
    await dialog.getByLabel("Greeting").waitFor();
    expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("greeter");

    // The required secret is asked for before anything is sent.
    await dialog.getByRole("button", { name: "Add server" }).click();
    await dialog.getByText("API key is required.").waitFor();
    await key.fill("sk-ui-123");
    await dialog.getByLabel("Greeting").fill("Hi");

    // Try it unpacks the bundle, starts it once, lists its tool, and deletes the folder again.
    await dialog.getByRole("button", { name: "Try it" }).click();
    const worked = dialog.getByRole("status", { name: "Try it worked" });
    await worked.waitFor({ timeout: START_TIMEOUT_MS });
    expect(await worked.getByRole("list", { name: "Tools it offers" }).textContent()).toContain(
      "greeter__greet",
    );
    expect(folders()).toEqual([]);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await ui.page.screenshot({ path: path.join(ARTIFACTS_DIR, "server-mcpb.png"), caret: "hide" });
    await dialog.getByRole("button", { name: "Add server" }).click();

    await ui.page.waitForURL((url) => url.hash.includes("name=greeter"));
    await ui.page
      .getByText("greet", { exact: true })
      .first()
      .waitFor({ timeout: START_TIMEOUT_MS });
    const [folder] = folders();
    const dir = path.join(home, "bundles", folder ?? "");
    expect(saved().greeter).toEqual({
      command: "node",
      args: [path.join(dir, "server", "index.mjs"), "Hi"],
      env: { GREETER_API_KEY: expect.any(String) as string },
      secret: ["GREETER_API_KEY"],
    });

    const shim = await connectShim(home, { name: "ui-mcpb", version: "1" });
    const result = await shim.run('print(await greeter__greet({"name": "Bo"}))');
    expect(result.stdout).toBe(`Hi, Bo! (key of 9 characters, from ${path.join(dir, "server")})\n`);
    await shim.close();
  });

  it("refuses a hostile bundle on the page and writes nothing", async () => {
    const escaped = path.join(os.tmpdir(), `codemode-ui-escaped-${path.basename(home)}.txt`);
    const file = path.join(makeHome("codemode-ui-hostile-"), "hostile.mcpb");
    writeFileSync(
      file,
      buildZip([
        { name: "manifest.json", data: JSON.stringify(GREETER_MANIFEST) },
        { name: `../../../../../../..${escaped}`, data: "pwned" },
      ]),
    );
    const dialog = await openBundleDialog();
    await dialog.getByLabel("Bundle file").setInputFiles(file);
    const alert = dialog.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain('a ".." segment');
    expect(existsSync(escaped)).toBe(false);
    expect(folders()).toHaveLength(1);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("removing the server on its page deletes its unpacked folder", async () => {
    await ui.page.goto(`${ui.daemon.origin}/#/servers?name=greeter`);
    await ui.page.getByRole("button", { name: "Remove" }).click();
    await ui.page.getByRole("button", { name: "Remove server" }).click();
    await ui.page.waitForURL((url) => !url.hash.includes("name=greeter"));
    const deadline = Date.now() + UI_TIMEOUT_MS;
    while (folders().length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(folders()).toEqual([]);
    expect(Object.keys(saved())).toEqual(["toy"]);
  });
});
