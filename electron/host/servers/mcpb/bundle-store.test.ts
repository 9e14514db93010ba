import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { API_LIMITS } from "../../../../shared/limits.js";
import { cleanUpHosts, makeHome } from "../../../../test-support/daemon.js";
import { GREETER_MANIFEST, packGreeterBundle } from "../../../../test-support/mcpb-fixture.js";
import { installBundle, openBundle, suggestedBundleServerName } from "./bundle-store.js";

afterAll(() => cleanUpHosts());

describe("bundle store", () => {
  it("drops a folder from the pending set when unpacking it fails", async () => {
    const opened = openBundle(readFileSync(packGreeterBundle()));
    // The data directory is a file: making bundles/ under it fails after the folder was named.
    const dataDir = path.join(makeHome("cm-bundle-store-"), "not-a-dir");
    writeFileSync(dataDir, "");
    const pending = new Set<string>();
    await expect(
      installBundle(
        opened,
        { api_key: "k" },
        { dataDir, pathEnv: process.env["PATH"] ?? "", pending },
      ),
    ).rejects.toThrow();
    expect([...pending]).toEqual([]);
  });

  it("suggests a server name the API accepts", () => {
    const opened = openBundle(
      readFileSync(packGreeterBundle({ ...GREETER_MANIFEST, name: "g".repeat(300) })),
    );
    expect(suggestedBundleServerName(opened.manifest)).toHaveLength(API_LIMITS.serverNameMaxChars);
  });
});
