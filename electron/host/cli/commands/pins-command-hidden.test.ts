// `codemode servers pins` shows a tool name's hidden characters escaped: pins written before
// such names were refused (or by hand) still reach a person's terminal.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { memoryIO } from "../../../../test-support/cli-io.js";
import { firstHiddenChar } from "../../../../shared/hidden-chars.js";
import { pinFileBeside, type PinFile } from "../../servers/pins/pin-file.js";
import { pinsCommand } from "./pins-command.js";

describe("codemode servers pins", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-pins-hidden-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("escapes invisible and bidi characters in tool names", async () => {
    const config = path.join(dir, "servers.json");
    const at = "2026-01-01T00:00:00.000Z";
    const pin = { hash: "a".repeat(64), definition: null, pinnedAt: at };
    const file: PinFile = {
      version: 1,
      servers: {
        mail: {
          pinned: { "send\u{E0041}\u{E0042}": pin, "report\u202Etxt.exe": pin, "a\u200Bb": pin },
          held: {},
        },
      },
    };
    writeFileSync(pinFileBeside(config), JSON.stringify(file));
    const { io, out } = memoryIO();
    expect(await pinsCommand(["--config", config], io)).toBe(0);
    expect(out()).toContain("send\\udb40\\udc41\\udb40\\udc42");
    expect(out()).toContain("report\\u202etxt.exe");
    expect(out()).toContain("a\\u200bb");
    expect(firstHiddenChar(out().replaceAll("\n", ""))).toBeNull();
  });
});
