import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { auditFileName, linesBackward, linesForward, listAuditFiles } from "./audit-files.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";

let dir: string;
useAuditDir((made) => (dir = made));

async function backward(file: string, chunk: number): Promise<{ text: string; offset: number }[]> {
  const out: { text: string; offset: number }[] = [];
  for await (const line of linesBackward(file, chunk)) {
    out.push({ text: line.bytes.toString("utf8"), offset: line.offset });
  }
  return out;
}

async function forward(
  file: string,
  chunk: number,
): Promise<{ text: string; complete: boolean }[]> {
  const out: { text: string; complete: boolean }[] = [];
  for await (const line of linesForward(file, chunk)) {
    out.push({ text: line.bytes.toString("utf8"), complete: line.complete });
  }
  return out;
}

describe("audit file lines", () => {
  it("reads the same lines from either end, at any chunk size, leaving out an unfinished tail", async () => {
    await mkdir(dir, { recursive: true });
    const lines = ["", "a", "bb", "ééé", "", "x".repeat(40), "last"];
    const cases: Record<string, string> = {
      complete: lines.join("\n") + "\n",
      unfinished: lines.join("\n") + "\n" + "half a li",
      empty: "",
      onlyUnfinished: "no newline at all",
      oneNewline: "\n",
    };
    for (const [name, content] of Object.entries(cases)) {
      const file = path.join(dir, name);
      await writeFile(file, content);
      const completeLines = content.split("\n").slice(0, -1);
      for (const chunk of [1, 2, 3, 7, 64, 1 << 16]) {
        const back = await backward(file, chunk);
        expect(
          back.map((line) => line.text),
          `${name} @${chunk}`,
        ).toEqual([...completeLines].reverse());
        for (const line of back) {
          expect(
            Buffer.from(content)
              .subarray(line.offset)
              .toString("utf8")
              .startsWith(line.text + "\n"),
          ).toBe(true);
        }
        const fwd = await forward(file, chunk);
        expect(fwd.filter((line) => line.complete).map((line) => line.text)).toEqual(completeLines);
        const tail = content.slice(content.lastIndexOf("\n") + 1);
        expect(fwd.filter((line) => !line.complete).map((line) => line.text)).toEqual(
          tail === "" ? [] : [tail],
        );
      }
    }
  });

  it("names files so they sort by first seq, and lists only log files", async () => {
    const at = new Date("2026-05-06T07:08:09.123Z");
    expect(auditFileName(42, at)).toBe("audit-20260506-070809-000000000042.jsonl");
    await mkdir(dir, { recursive: true });
    for (const name of [
      auditFileName(1000, new Date("2020-01-01T00:00:00Z")),
      auditFileName(7, new Date("2026-01-01T00:00:00Z")),
      "audit-20260101-000000-000000000001.jsonl.5.torn",
      "notes.txt",
    ]) {
      await writeFile(path.join(dir, name), "");
    }
    expect((await listAuditFiles(dir)).map((file) => file.firstSeq)).toEqual([7, 1000]);
    expect(await listAuditFiles(path.join(dir, "missing"))).toEqual([]);
  });
});
