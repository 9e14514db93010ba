// Tool names with hidden characters, as a person reads them in the browser UI: a real
// `codemode daemon --ui`, the toy server listing `send` followed by tag characters and a name
// with a right-to-left override, and Chromium on the Servers and Audit pages. Both tools are
// refused (never pinned or offered) and every page shows their names escaped (`\u{E0041}`);
// one was pinned before such names were refused, so it is held as removed and its review shows
// the name escaped too.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerView } from "../shared/api/api-views.js";
import { firstHiddenChar } from "../shared/hidden-chars.js";
import { pinnedForm } from "../electron/host/servers/pins/tool-hash.js";
import { auditEntries, toyServer, writeServers } from "../test-support/daemon.js";
import { waitForText, waitUntil } from "../test-support/browser.js";
import { useUiPage } from "../test-support/ui-page.js";
import { connectWsApi, type WsApi } from "../test-support/ws-api.js";

const schema = { type: "object", properties: {} };
const LIST = { name: "list", description: "List mail.", inputSchema: schema };
const TAGGED = `send${String.fromCodePoint(0xe0041, 0xe0042, 0xe0043)}`;
const BIDI = "report\u202Etxt.exe";
const at = "2026-01-01T00:00:00.000Z";

describe("tool names with hidden characters (browser UI)", () => {
  let ws: WsApi;
  const ui = useUiPage({
    homePrefix: "codemode-ui-hidden-names-",
    prepare: (home) => {
      const toolsFile = path.join(home, "toy-tools.json");
      writeFileSync(
        toolsFile,
        JSON.stringify([
          LIST,
          { name: TAGGED, description: "Send mail.", inputSchema: schema },
          { name: BIDI, description: "A report.", inputSchema: schema },
        ]),
      );
      writeServers(home, { toy: toyServer({ env: { TOY_TOOLS_FILE: toolsFile } }) });
      // Pinned as an older version would have: list, and the name with the override.
      const pin = (wire: Record<string, unknown>) => ({
        hash: pinnedForm(wire).hash,
        definition: pinnedForm(wire).definition,
        pinnedAt: at,
      });
      const pinned = {
        list: pin(LIST),
        [BIDI]: pin({ name: BIDI, description: "A report.", inputSchema: schema }),
      };
      writeFileSync(
        path.join(home, "pins.json"),
        JSON.stringify({ version: 1, servers: { toy: { pinned, held: {} } } }),
      );
    },
  });

  const toy = async (): Promise<ServerView | undefined> =>
    (await ws.request("servers.list", {})).items.find((s) => s.name === "toy");

  beforeAll(async () => {
    ws = await connectWsApi(ui.daemon.port, { ticket: await ui.daemon.ticket() });
    await waitUntil(toy, (s) => s?.status === "ready" && s.held === 1, "toy listed, one held");
  });
  afterAll(() => ws?.close());

  it("offers neither tool, and holds the one pinned before as removed", async () => {
    const tools = await ws.request("servers.tools", { name: "toy" });
    const byName = new Map(tools.tools.map((t) => [t.name, t]));
    expect(byName.get("list")?.leftOut).toBeNull();
    for (const name of [TAGGED, BIDI]) {
      expect(byName.get(name)).toMatchObject({
        pyName: null,
        leftOut: { code: "name_hidden_chars" },
      });
    }
    const held = await ws.request("servers.held", { name: "toy" });
    expect(held.held.map((h) => [h.tool, h.kind])).toEqual([[BIDI, "removed"]]);
  });

  it("the Servers page shows both names escaped, in the tool list and the review", async () => {
    await ui.page.goto(`${ui.daemon.origin}/#/servers?name=toy`);
    const toolList = ui.page.getByRole("list", { name: "Tools of toy" });
    await waitForText(
      toolList,
      /send\\u\{E0041\}\\u\{E0042\}\\u\{E0043\}[\s\S]*Left out: hidden characters in name/,
      "the tagged name escaped",
    );
    await waitForText(toolList, /report\\u\{202E\}txt\.exe/, "the override escaped");
    const review = ui.page.getByRole("list", { name: "Changes to review on toy" });
    await waitForText(review, /report\\u\{202E\}txt\.exe[\s\S]*Removed/, "the review");
    const text = await ui.page.locator("body").innerText();
    expect(firstHiddenChar(text.replaceAll(/[\n\t]/g, ""))).toBeNull();
  });

  it("the Audit page shows the held tool's name escaped", async () => {
    await waitUntil(
      () => Promise.resolve(auditEntries(ui.home, "tool_held")),
      (entries) => entries.some((e) => e.tool === BIDI),
      "the tool_held entry",
    );
    await ui.nav("Audit log").click();
    const list = ui.page.getByRole("listbox", { name: "Audit entries" });
    await waitForText(list, /toy › report\\u\{202E\}txt\.exe/, "the entry's target");
    const text = await list.innerText();
    expect(firstHiddenChar(text.replaceAll(/[\n\t]/g, ""))).toBeNull();
  });
});
