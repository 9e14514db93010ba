// What a saved config tells those that apply it about renamed servers (their pins follow them):
// the rename of the server form, and a whole file saved with a server under a new name.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigStore, SERVERS_FILE } from "./config-store.js";
import { launchFingerprint } from "../launch-fingerprint.js";
import type { ServerEntry, ServersConfig } from "../../core/ports/server-config-types.js";

function entry(extra: Partial<ServerEntry> = {}): ServerEntry {
  return {
    command: "node",
    args: [],
    env: {},
    secretEnv: [],
    allow: null,
    private: false,
    ...extra,
  };
}

describe("ConfigStore: renames", () => {
  let dir: string;
  let renames: [string, string][][];

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "codemode-config-renames-"));
    renames = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function store(entries: Record<string, ServerEntry>): ConfigStore {
    const config: ServersConfig = { servers: new Map(Object.entries(entries)) };
    const made = new ConfigStore(config, {
      file: path.join(dir, SERVERS_FILE),
      listedTools: () => [],
      catalogInput: () => [],
    });
    made.onApply((_config, _summary, renamed) => {
      renames.push([...renamed]);
      return Promise.resolve();
    });
    return made;
  }

  it("tells the rename of the server form, whatever else changed with it", async () => {
    const made = store({ mail: entry({ args: ["mail.js"] }), other: entry({ args: ["o.js"] }) });
    await made.upsert("email", entry({ args: ["mail.js", "--v2"] }), "mail");
    await made.upsert("other", entry({ args: ["o2.js"] }), "other");
    await made.upsert("added", entry({ args: ["a.js"] }), undefined, { addOnly: true });
    expect(renames).toEqual([[["mail", "email"]], [], []]);
  });

  it("tells a server renamed in the whole file by how it starts", async () => {
    const made = store({ mail: entry({ args: ["mail.js"] }), files: entry({ args: ["f.js"] }) });
    await made.replaceAll(
      new Map([
        ["docs", entry({ args: ["f.js"] })],
        ["email", entry({ args: ["mail.js"] })],
      ]),
      "config saved",
    );
    // One gone and one new left, started differently: still that server, renamed.
    await made.replaceAll(
      new Map([
        ["docs", entry({ args: ["f.js"] })],
        ["post", entry({ args: ["mail.js", "--v2"] })],
      ]),
      "config saved",
    );
    // Removed outright: no rename.
    await made.replaceAll(new Map([["docs", entry({ args: ["f.js"] })]]), "config saved");
    expect(renames).toEqual([
      [
        ["files", "docs"],
        ["mail", "email"],
      ],
      [["email", "post"]],
      [],
    ]);
  });
});

describe("launchFingerprint", () => {
  it("changes with the command, the arguments and the env, but a secret counts by name only", () => {
    const base = entry({
      env: { TOKEN: "s3cret", MODE: "a" },
      secretEnv: ["TOKEN"],
    });
    const fp = launchFingerprint(base);
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(launchFingerprint({ ...base, env: { ...base.env, TOKEN: "other" } })).toBe(fp);
    expect(launchFingerprint({ ...base, env: { ...base.env, MODE: "b" } })).not.toBe(fp);
    expect(launchFingerprint({ ...base, args: ["x"] })).not.toBe(fp);
    expect(launchFingerprint({ ...base, command: "python" })).not.toBe(fp);
    expect(launchFingerprint({ ...base, allow: ["x"] })).toBe(fp);
  });
});
