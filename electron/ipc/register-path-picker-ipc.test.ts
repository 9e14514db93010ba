import type { IpcMainInvokeEvent, WebContents } from "electron";
import { describe, expect, it } from "vitest";
import { IPC_PICK_PATH } from "../../shared/api/ipc-channels.js";
import { registerPathPickerIpc, type ShowOpenDialog } from "./register-path-picker-ipc.js";

function setUp(answer: { canceled: boolean; filePaths: string[] }) {
  let handler: ((event: IpcMainInvokeEvent, params: unknown) => unknown) | null = null;
  const asked: Parameters<ShowOpenDialog>[1][] = [];
  const own = {} as WebContents;
  registerPathPickerIpc(
    { handle: (channel, listener) => channel === IPC_PICK_PATH && (handler = listener) },
    (_sender, options) => {
      asked.push(options);
      return Promise.resolve(answer);
    },
    (sender) => sender === own,
  );
  const call = (params: unknown, sender: WebContents = own) =>
    handler!({ sender, senderFrame: { url: "file:///index.html" } } as IpcMainInvokeEvent, params);
  return { call, asked };
}

describe("registerPathPickerIpc", () => {
  it("opens a folder picker or a file picker and returns the chosen path", async () => {
    const { call, asked } = setUp({ canceled: false, filePaths: ["/home/ann/notes"] });
    expect(await call({ kind: "folder" })).toBe("/home/ann/notes");
    expect(await call({ kind: "file" })).toBe("/home/ann/notes");
    expect(asked).toEqual([
      { properties: ["openDirectory", "createDirectory"] },
      { properties: ["openFile"] },
    ]);
  });

  it("returns null when cancelled, for another window, or for a bad request", async () => {
    expect(await setUp({ canceled: true, filePaths: [] }).call({ kind: "folder" })).toBeNull();
    const { call, asked } = setUp({ canceled: false, filePaths: ["/x"] });
    expect(await call({ kind: "folder" }, {} as WebContents)).toBeNull();
    expect(await call({ kind: "everything" })).toBeNull();
    expect(asked).toEqual([]);
  });
});
