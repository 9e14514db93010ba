import { describe, expect, it } from "vitest";
import type { SandboxEngine } from "../container-engine/sandbox-engine.js";
import { currentOwner } from "../containers/container-owner.js";
import { shutOut, slotOpener, withSlotOpened } from "./slot-opener.js";

const denied = (code: string) => Object.assign(new Error(`${code}: /host/path`), { code });

describe("withSlotOpened", () => {
  it("opens the slot once when the host was shut out, then tries again", async () => {
    const opened: string[] = [];
    let tries = 0;
    const value = await withSlotOpened(
      "/slot",
      (dir) => {
        opened.push(dir);
        return Promise.resolve();
      },
      () => (++tries === 1 ? Promise.reject(denied("EACCES")) : Promise.resolve("done")),
    );
    expect(value).toBe("done");
    expect(opened).toEqual(["/slot"]);
  });

  it("opens nothing for another failure, or where there is no opener", async () => {
    let opens = 0;
    const open = () => {
      opens++;
      return Promise.resolve();
    };
    await expect(
      withSlotOpened("/slot", open, () => Promise.reject(denied("ENOSPC"))),
    ).rejects.toThrow("ENOSPC");
    await expect(
      withSlotOpened("/slot", null, () => Promise.reject(denied("EPERM"))),
    ).rejects.toThrow("EPERM");
    expect(opens).toBe(0);
  });

  it("throws the first failure when the opening fails too", async () => {
    let tries = 0;
    await expect(
      withSlotOpened(
        "/slot",
        () => Promise.reject(new Error("engine: /host/slot")),
        () => {
          tries++;
          return Promise.reject(denied("EACCES"));
        },
      ),
    ).rejects.toMatchObject({ code: "EACCES" });
    expect(tries).toBe(1);
  });

  it("tells a permission failure from others", () => {
    expect([denied("EACCES"), denied("EPERM"), denied("ENOENT"), null].map(shutOut)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe("slotOpener", () => {
  it("never opens through an engine that cannot mount this computer's folders", () => {
    const remote = { mountsHostFolders: false } as SandboxEngine;
    expect(slotOpener(remote, "image", currentOwner("x"), () => "runc")).toBeNull();
  });
});
