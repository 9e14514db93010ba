// A Servers page with more servers than one page of servers.list
// holds. `codemode daemon --ui` as a real process, Debian's Chromium. The page draws the first
// page with "Showing 100 of 250 servers" and a Show more button that adds the next page; a
// link to a server past the pages shown still opens it; the sidebar counts every failed one.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_LIMITS } from "../shared/limits.js";
import { writeServers } from "../test-support/daemon.js";
import { useUiPage } from "../test-support/ui-page.js";

const PAGE = API_LIMITS.serversPageMaxLimit;
const MANY = PAGE * 2 + 50;

describe("a long server list (browser UI)", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-long-",
    // A command that is not there: each server fails at once, without starting a process.
    prepare: (home) =>
      writeServers(
        home,
        Object.fromEntries(
          Array.from({ length: MANY }, (_, i) => [
            `srv${String(i).padStart(3, "0")}`,
            { command: path.join(home, "no-such-server"), args: [] },
          ]),
        ),
      ),
  });
  const rows = () => ui.page.getByRole("list", { name: "Servers" }).getByRole("listitem");

  it("shows the first page, and Show more adds the next one", async () => {
    await ui.page.goto(`${ui.daemon.origin}/#/servers`);
    await ui.page.getByText(`Showing ${PAGE} of ${MANY} servers`).waitFor();
    expect(await rows().count()).toBe(PAGE);
    await ui.page.getByRole("button", { name: "Show more" }).click();
    await ui.page.getByText(`Showing ${PAGE * 2} of ${MANY} servers`).waitFor();
    expect(await rows().count()).toBe(PAGE * 2);
    expect(await rows().last().innerText()).toContain(`srv${PAGE * 2 - 1}`);
  });

  it("opens a server past the pages shown, and counts every failed server", async () => {
    const last = `srv${MANY - 1}`;
    await ui.page.goto(`${ui.daemon.origin}/#/servers?name=${last}`);
    await ui.page.getByRole("heading", { name: last }).waitFor();
    const nav = ui.page.getByRole("navigation", { name: "Main" });
    await nav.getByText(String(MANY), { exact: true }).waitFor();
  });
});
