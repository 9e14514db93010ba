// MCP Bundles added from the command line, as a user does it: a real bundle packed by the
// MCPB project's own `mcpb pack`, `codemode servers add NAME --from-mcpb FILE` as a process,
// then the daemon started on that home, a real MCP client through the shim, and the bundled
// server's tool called from run_python in Docker. Hostile and unrunnable bundles are refused
// by the same command, leaving nothing behind. Removing the server removes its folder.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  api,
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  hostEnv,
  makeHome,
  runCli,
  startDaemon,
  startHostInProcess,
  stopHostInProcess,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { findOnPath } from "../electron/host/servers/mcpb/mcpb-runtime.js";
import { resolveServerPath } from "../electron/host/servers/server-path.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { GREETER_MANIFEST, packGreeterBundle } from "../test-support/mcpb-fixture.js";
import { buildZip } from "../test-support/zip-builder.js";
import { listsTool } from "../test-support/described-tools.js";

const fx = await dockerOrSkip();

type Saved = Record<
  string,
  { command: string; args: string[]; env: Record<string, string>; secret?: string[] }
>;

function saved(home: string): Saved {
  const text = readFileSync(path.join(home, "servers.json"), "utf8");
  return (JSON.parse(text) as { mcpServers: Saved }).mcpServers;
}

function bundleFolders(home: string): string[] {
  const dir = path.join(home, "bundles");
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe.skipIf(!fx)("MCP Bundles from the command line", () => {
  let bundle: string;

  beforeAll(() => {
    assertHostBuilt();
    assertToyServerBuilt();
    bundle = packGreeterBundle();
  });
  afterAll(() => cleanUpHosts(fx?.docker));

  it("adds a bundle packed by mcpb, and its tool runs from run_python in Docker", async () => {
    const home = makeHome();
    writeServers(home, { toy: toyServer() });
    const add = ["servers", "add", "greet", "--from-mcpb", bundle];

    // The required, sensitive setting is asked for by name, and nothing is unpacked.
    const missing = await runCli(home, add);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--set api_key: API key is required: The greeter's key");
    expect(missing.stderr).toContain("This bundle takes: api_key (API key), greeting? (Greeting)");
    expect(bundleFolders(home)).toEqual([]);

    const ok = await runCli(home, [
      ...add,
      "--set",
      "api_key=sk-test-12345",
      "--set",
      "greeting=Howdy",
    ]);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("Added greet from the bundle Greeter 1.0.0");
    expect(ok.stdout).toContain("(secret: GREETER_API_KEY)");
    expect(ok.stdout).not.toContain("sk-test-12345");
    const [folder] = bundleFolders(home);
    const dir = path.join(home, "bundles", folder ?? "");
    expect(saved(home).greet).toEqual({
      command: "node",
      args: [path.join(dir, "server", "index.mjs"), "Howdy"],
      env: { GREETER_API_KEY: "sk-test-12345" },
      secret: ["GREETER_API_KEY"],
    });
    expect(JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"))).toMatchObject({
      name: "greeter",
    });

    const daemon = await startDaemon(home);
    try {
      const shim = await connectShim(home, { name: "mcpb-e2e", version: "1" });
      expect(listsTool(await shim.description(), "greet", "greet")).toBe(true);
      const result = await shim.run('print(await greet__greet({"name": "Ann"}))');
      expect(result).toMatchObject({ error: null, exit_code: 0, calls: 1 });
      expect(result.stdout).toBe(
        `Howdy, Ann! (key of 13 characters, from ${path.join(dir, "server")})\n`,
      );
      await shim.close();
    } finally {
      await daemon.stop();
    }

    // Removing the server (through the API, as the Servers page does) removes its folder.
    const { host } = await startHostInProcess(home);
    try {
      await api(host, "servers.remove", { name: "greet" });
      expect(existsSync(dir)).toBe(false);
      expect(bundleFolders(home)).toEqual([]);
      expect(Object.keys(saved(home))).toEqual(["toy"]);
    } finally {
      await stopHostInProcess(host);
    }
  });

  it("refuses a hostile bundle without writing outside (or inside) the data directory", async () => {
    const home = makeHome();
    const work = makeHome("codemode-hostile-");
    const escaped = path.join(os.tmpdir(), `codemode-escaped-${path.basename(work)}.txt`);
    const manifest = JSON.stringify(GREETER_MANIFEST);
    const cases: [string, Buffer, string][] = [
      [
        "traversal",
        buildZip([
          { name: "manifest.json", data: manifest },
          { name: `../../../../../../..${escaped}`, data: "pwned" },
        ]),
        'a ".." segment',
      ],
      [
        "absolute",
        buildZip([
          { name: "manifest.json", data: manifest },
          { name: escaped.slice(0), data: "pwned" },
        ]),
        "an absolute path",
      ],
      [
        "symlink",
        buildZip([
          { name: "manifest.json", data: manifest },
          { name: "server", data: os.tmpdir(), mode: 0o120777 },
          { name: `server/${path.basename(escaped)}`, data: "pwned" },
        ]),
        "symbolic link",
      ],
      [
        "bomb",
        buildZip([
          { name: "manifest.json", data: manifest },
          { name: "server/index.mjs", data: Buffer.alloc(8 * 1024 * 1024), declaredSize: 10 },
        ]),
        "inflates to more than 10 bytes",
      ],
    ];
    for (const [name, zip, reason] of cases) {
      const file = path.join(work, `${name}.mcpb`);
      writeFileSync(file, zip);
      const result = await runCli(home, [
        "servers",
        "add",
        name,
        "--from-mcpb",
        file,
        "--set",
        "api_key=k",
      ]);
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toContain("the bundle was refused");
      expect(result.stderr, name).toContain(reason);
      expect(existsSync(escaped), name).toBe(false);
      expect(bundleFolders(home), name).toEqual([]);
    }
    expect(existsSync(path.join(home, "servers.json"))).toBe(false);
  });

  it("refuses bundles this machine cannot run, saying why", async () => {
    const home = makeHome();
    const other = process.platform === "darwin" ? "linux" : "darwin";
    const foreign = packGreeterBundle({
      ...GREETER_MANIFEST,
      server: { ...GREETER_MANIFEST.server, type: "binary", entry_point: "server/index.mjs" },
      compatibility: { platforms: [other] },
    });
    const wrongPlatform = await runCli(home, [
      "servers",
      "add",
      "foreign",
      "--from-mcpb",
      foreign,
      "--set",
      "api_key=k",
    ]);
    expect(wrongPlatform.code).toBe(1);
    expect(wrongPlatform.stderr).toContain(
      "Code Mode cannot run this bundle here: this bundle runs on",
    );

    // The runtime is looked for on the PATH the app gives its servers (the login shell's,
    // this process's and the usual install folders). uv is not installed on our machines;
    // where it is, the same bundle passes the runtime check and fails later, in its files.
    const uvBundle = packGreeterBundle({
      ...GREETER_MANIFEST,
      manifest_version: "0.4",
      server: { ...GREETER_MANIFEST.server, type: "uv", entry_point: "server/index.mjs" },
    });
    const serverPath = await resolveServerPath({ env: hostEnv(home) });
    const hasUv = findOnPath("uv", serverPath.path, process.platform) !== null;
    const noUv = await runCli(home, [
      "servers",
      "add",
      "uvbundle",
      "--from-mcpb",
      uvBundle,
      "--set",
      "api_key=k",
    ]);
    if (hasUv) {
      expect(noUv.stderr).not.toContain("none of uv");
    } else {
      expect(noUv.code).toBe(1);
      expect(noUv.stderr).toContain(
        "this is a uv bundle, and none of uv is on the PATH servers get",
      );
    }
    expect(bundleFolders(home)).toEqual([]);
  });
});
