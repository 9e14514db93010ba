import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../../shared/audit-entry.js";
import { callInput, HASH } from "../../../../test-support/audit-fixtures.js";
import { writeLine } from "../cli-io.js";
import { formatEntry } from "./audit-command.js";

function entry(overrides: Parameters<typeof callInput>[1]): AuditEntry {
  return { seq: 7, ts: "2026-01-01T00:00:00.000Z", prev: HASH, ...callInput(1, overrides) };
}

describe("codemode audit tail's lines", () => {
  it("keep a forged CR/LF, escape sequence or bidi control from the entry on one escaped line", () => {
    const line = formatEntry(
      entry({
        client: "evil\r\n2026-01-01T00:00:00.000Z #8 call                x allowed",
        tool: "t\u001b]52;c;aGk=\u0007\u202e",
        decision: "refused",
        reason: "no\u009b31m",
      }),
    );
    expect(line).toBe(
      "2026-01-01T00:00:00.000Z #7 call                evil\\u000d\\u000a2026-01-01T00:00:00.000Z #8 call" +
        "                x allowed t\\u001b]52;c;aGk=\\u0007\\u202e refused: no\\u009b31m",
    );
  });

  it("writeLine escapes whatever a caller passes, keeping only its own line breaks", async () => {
    const out = new PassThrough();
    writeLine(out, 'codemode serve: Left out tool "a\u001b[2Jb" of server "s"\nsecond line\r');
    out.end();
    let text = "";
    for await (const chunk of out) text += String(chunk);
    expect(text).toBe(
      'codemode serve: Left out tool "a\\u001b[2Jb" of server "s"\nsecond line\\u000d\n',
    );
  });

  it("name the runtime a run started on, when the entry says", () => {
    const started = {
      seq: 3,
      ts: "2026-01-01T00:00:00.000Z",
      prev: HASH,
      kind: "run_started",
      runId: "r1",
      client: "c",
      code: "print(1)",
      codeBytes: 8,
      codeHash: HASH,
    } as const;
    expect(formatEntry({ ...started, runtime: "runsc" })).toBe(
      "2026-01-01T00:00:00.000Z #3 run_started         c run r1 (8 bytes of code, runsc)",
    );
    expect(formatEntry(started)).toBe(
      "2026-01-01T00:00:00.000Z #3 run_started         c run r1 (8 bytes of code)",
    );
  });
});
