// A failed server's start error is shown once: its stderr lines, which the host's error carries
// at its end, are left to the block the Servers page shows them in.
// Plain JS so that the renderer's TypeScript program never sees Node types.
import { describe, expect, it } from "vitest";
import { withStderr } from "../../../electron/host/servers/stderr-tail.ts";
import { startErrorText } from "./start-error.ts";

const failed = 'Server "broken" failed to start: MCP error -32000: Connection closed';

describe("startErrorText", () => {
  it("leaves the stderr lines out of the error when the page shows them below it", () => {
    const error = withStderr(failed, ["toy server: TOY_FAIL_START=1, giving up"]);
    expect(startErrorText(error, true)).toBe(failed);
  });

  it("keeps the whole error when no stderr lines are shown", () => {
    const error = withStderr(failed, ["a line"]);
    expect(startErrorText(error, false)).toBe(error);
    expect(startErrorText(withStderr(failed, []), false)).toBe(`${failed} (no stderr output)`);
  });

  it("keeps an error that carries no stderr lines as it is", () => {
    expect(startErrorText("spawn npx ENOENT", true)).toBe("spawn npx ENOENT");
  });
});
