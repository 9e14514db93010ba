// The Audit log's chain result must be readable whole, beside the checkpoint note a daemon
// without an OS keychain shows, in a wide window and a narrow one. Before, the note squeezed
// the badge to "Chain verified: 23 e…" even at 1280 px, and at 420 px the Verify button
// went past the window's edge.
import { describe, expect, it } from "vitest";
import { waitForText } from "../test-support/browser.js";
import { useUiPage } from "../test-support/ui-page.js";

interface Box {
  left: number;
  right: number;
}
interface Measured {
  scrollWidth: number;
  clientWidth: number;
  getBoundingClientRect(): Box;
}

describe("the audit chain result at any window width (browser UI)", () => {
  const ui = useUiPage({ homePrefix: "codemode-verify-layout-" });

  it("shows the whole result and the Verify button at 1280 and 420 px", async () => {
    const { page } = ui;
    await ui.nav("Audit log").click();
    const verify = page.getByRole("status", { name: "Chain verification" });
    await waitForText(verify, /Chain verified at [\d:]+(?: [AP]M)?: \d+ entr(y|ies)/);
    // The note is what competes for the room (this daemon has no OS keychain).
    await waitForText(verify, /Checkpoint not signed/);

    for (const width of [1280, 420]) {
      await page.setViewportSize({ width, height: 860 });
      const badge = verify.getByText(/^Chain verified at [\d:]+(?: [AP]M)?: \d+ entr(y|ies)$/);
      const cut = await badge.evaluate((el) => {
        const b = el as Measured;
        return b.scrollWidth - b.clientWidth;
      });
      expect(cut, `the badge is cut at ${width} px`).toBeLessThanOrEqual(0);
      const button = await verify
        .getByRole("button", { name: "Verify" })
        .evaluate((el) => (el as Measured).getBoundingClientRect());
      expect(button.left, `Verify at ${width} px`).toBeGreaterThanOrEqual(0);
      expect(button.right, `Verify at ${width} px`).toBeLessThanOrEqual(width);
    }
  });
});
