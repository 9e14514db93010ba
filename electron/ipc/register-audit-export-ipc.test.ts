// The desktop export's wiring with a stand-in save dialog (Electron cannot start here): the
// file the dialog names gets the real log's export, streamed through a file.
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { IpcMainInvokeEvent, WebContents } from "electron";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IPC_EXPORT_AUDIT } from "../../shared/api/ipc-channels.js";
import { callInput, makeTempDir } from "../../test-support/audit-fixtures.js";
import { AuditLog } from "../host/audit/audit-log.js";
import { registerAuditExportIpc, type ShowSaveDialog } from "./register-audit-export-ipc.js";

let dir: string;
let remove: () => Promise<void>;
let log: AuditLog;
beforeEach(async () => {
  ({ dir, remove } = await makeTempDir());
  log = await AuditLog.open({ dir: path.join(dir, "audit"), fsync: false });
  for (let i = 0; i < 40; i += 1) await log.append(callInput(i));
});
afterEach(async () => {
  await log.close();
  await remove();
});

function setUp(answer: { canceled: boolean; filePath?: string }, fail = false) {
  let handler: ((event: IpcMainInvokeEvent, params: unknown) => unknown) | null = null;
  const asked: Parameters<ShowSaveDialog>[1][] = [];
  const own = {} as WebContents;
  registerAuditExportIpc(
    { handle: (channel, listener) => channel === IPC_EXPORT_AUDIT && (handler = listener) },
    (_sender, options) => {
      asked.push(options);
      return Promise.resolve(answer);
    },
    async (format, out, filter) => {
      const n = await log.export(format, out, filter);
      if (fail) throw new Error("disk full");
      return n;
    },
    (sender) => sender === own,
  );
  const call = (params: unknown, sender: WebContents = own) =>
    handler!({ sender, senderFrame: { url: "file:///index.html" } } as IpcMainInvokeEvent, params);
  return { call, asked };
}

describe("registerAuditExportIpc", () => {
  it("asks where to save, then streams the export into that file", async () => {
    const file = path.join(dir, "mine.csv");
    const { call, asked } = setUp({ canceled: false, filePath: file });
    expect(await call({ format: "csv", filter: { decision: "refused" } })).toEqual({
      ok: true,
      saved: { path: file, entries: 10 },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.defaultPath).toMatch(/^codemode-audit-[\d-]+\.csv$/);
    expect(asked[0]!.filters).toEqual([{ name: "CSV", extensions: ["csv"] }]);
    expect((await readFile(file, "utf8")).trimEnd().split("\r\n")).toHaveLength(11);
  });

  it("writes the whole log as JSONL, replacing a file the user chose to overwrite", async () => {
    const file = path.join(dir, "log.jsonl");
    await writeFile(file, "old\n");
    const { call } = setUp({ canceled: false, filePath: file });
    expect(await call({ format: "jsonl" })).toMatchObject({ ok: true, saved: { entries: 40 } });
    expect((await readFile(file, "utf8")).trimEnd().split("\n")).toHaveLength(40);
  });

  it("does nothing when cancelled, for another window, or for a bad request", async () => {
    expect(await setUp({ canceled: true }).call({ format: "csv" })).toEqual({
      ok: true,
      saved: null,
    });
    const { call, asked } = setUp({ canceled: false, filePath: path.join(dir, "x.csv") });
    expect(await call({ format: "csv" }, {} as WebContents)).toMatchObject({ ok: false });
    expect(await call({ format: "xml" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/invalid export request/) as unknown,
    });
    expect(asked).toEqual([]);
  });

  it("reports a failed export as data and leaves no file, nor a partial one, behind", async () => {
    const file = path.join(dir, "out.jsonl");
    await writeFile(file, "kept\n");
    const { call } = setUp({ canceled: false, filePath: file }, true);
    expect(await call({ format: "jsonl" })).toEqual({
      ok: false,
      message: "The export could not be saved: disk full",
    });
    expect(await readFile(file, "utf8")).toBe("kept\n");
    expect((await readdir(dir)).filter((name) => name.endsWith(".part"))).toEqual([]);
    const missing = setUp({ canceled: false, filePath: path.join(dir, "no", "such", "x.csv") });
    expect(await missing.call({ format: "csv" })).toMatchObject({ ok: false });
  });
});
