import { describe, expect, it } from "vitest";
import { buildBundleEntry } from "./mcpb-entry.js";
import { mcpbManifest, type McpbManifest } from "./mcpb-manifest.js";
import { runtimeProblem } from "./mcpb-runtime.js";

const place = {
  dir: "/data/bundles/0123456789abcdef",
  home: "/home/ann",
  platform: "linux" as const,
};

function manifest(
  extra: Record<string, unknown> = {},
  server: Record<string, unknown> = {},
): McpbManifest {
  return mcpbManifest.parse({
    manifest_version: "0.3",
    name: "notes",
    version: "1.0.0",
    description: "Notes",
    author: { name: "A" },
    server: {
      type: "node",
      entry_point: "server/index.js",
      mcp_config: {
        command: "node",
        args: [
          "${__dirname}/server/index.js",
          "--dirs",
          "${user_config.dirs}",
          "--limit=${user_config.limit}",
        ],
        env: {
          API_KEY: "${user_config.api_key}",
          AUTH: "Bearer ${user_config.api_key}",
          VERBOSE: "${user_config.verbose}",
          DOCS: "${DOCUMENTS}${/}notes",
          KEEP: "${unknown_variable}",
        },
        ...server,
      },
    },
    user_config: {
      api_key: {
        type: "string",
        title: "API key",
        description: "From the site",
        sensitive: true,
        required: true,
      },
      dirs: {
        type: "directory",
        title: "Folders",
        description: "Folders",
        multiple: true,
        default: ["${HOME}/notes"],
      },
      limit: { type: "number", title: "Limit", description: "Max", min: 1, max: 10, default: 5 },
      verbose: { type: "boolean", title: "Verbose", description: "More", default: false },
    },
    ...extra,
  });
}

describe("buildBundleEntry", () => {
  it("puts the values and variables into mcp_config, and marks env holding a sensitive value secret", () => {
    const built = buildBundleEntry(manifest(), { api_key: "sk-1", dirs: ["/a", "/b c"] }, place);
    expect(built).toEqual({
      ok: true,
      entry: {
        command: "node",
        args: [`${place.dir}/server/index.js`, "--dirs", "/a", "/b c", "--limit=5"],
        env: {
          API_KEY: "sk-1",
          AUTH: "Bearer sk-1",
          VERBOSE: "false",
          DOCS: "/home/ann/Documents/notes",
          KEEP: "${unknown_variable}",
        },
        secret: ["API_KEY", "AUTH"],
      },
    });
  });

  it("uses defaults with their variables, and drops an empty expansion", () => {
    const built = buildBundleEntry(manifest(), { api_key: "k" }, place);
    expect(built.ok && built.entry.args).toEqual([
      `${place.dir}/server/index.js`,
      "--dirs",
      "/home/ann/notes",
      "--limit=5",
    ]);
  });

  it("names every problem with the values", () => {
    const built = buildBundleEntry(
      manifest(),
      { limit: "11", verbose: "yes", nope: "1", dirs: ["/a"] },
      place,
    );
    expect(built.ok).toBe(false);
    expect(!built.ok && built.problems).toEqual([
      { key: "nope", message: expect.stringContaining('no setting "nope"') as string },
      { key: "api_key", message: "API key is required: From the site" },
      { key: "limit", message: "Limit must be at most 10" },
      { key: "verbose", message: "Verbose must be true or false" },
    ]);
  });

  it("refuses a bundle that passes a secret on the command line", () => {
    const m = manifest({}, { args: ["--key", "${user_config.api_key}"] });
    const built = buildBundleEntry(m, { api_key: "k" }, place);
    expect(!built.ok && built.problems[0]?.message).toContain("command line");
  });

  it("refuses a reference to an undeclared setting, and applies the platform override", () => {
    const bad = buildBundleEntry(
      manifest({}, { env: { X: "${user_config.ghost}" } }),
      { api_key: "k" },
      place,
    );
    expect(!bad.ok && bad.problems[0]?.message).toContain("does not declare");
    const over = manifest(
      {},
      {
        command: "server/bin-mac",
        platform_overrides: { linux: { command: "server/bin-linux", args: [] } },
      },
    );
    const built = buildBundleEntry(over, { api_key: "k" }, place);
    expect(built.ok && built.entry).toMatchObject({
      command: `${place.dir}/server/bin-linux`,
      args: [],
    });
  });
});

describe("runtimeProblem", () => {
  const facts = {
    platform: "linux" as const,
    pathEnv: process.env.PATH ?? "",
    bundleHasFile: () => true,
    dir: place.dir,
  };
  const entry = { command: "node", args: [], env: {} };

  it("accepts a node bundle where node is on the PATH", () => {
    expect(runtimeProblem(manifest(), entry, facts)).toBeNull();
  });

  it("refuses a node bundle without node, a python one without python or uv, and another platform's binary", () => {
    const empty = { ...facts, pathEnv: "/nonexistent" };
    expect(runtimeProblem(manifest(), entry, empty)).toContain("this is a Node.js bundle");
    const py = manifest({}, {});
    py.server.type = "python";
    expect(runtimeProblem(py, { ...entry, command: "python3" }, empty)).toContain(
      "none of uv, python3, python is on the PATH",
    );
    const mac = manifest({ compatibility: { platforms: ["darwin", "win32"] } });
    mac.server.type = "binary";
    expect(runtimeProblem(mac, entry, facts)).toBe(
      "this bundle runs on macOS, Windows; this computer runs Linux",
    );
  });

  it("refuses a bundle whose command is not in it", () => {
    const bin = manifest();
    bin.server.type = "binary";
    const inBundle = { ...entry, command: `${place.dir}/server/missing` };
    expect(runtimeProblem(bin, inBundle, { ...facts, bundleHasFile: () => false })).toContain(
      '"server/missing", which is not in the bundle',
    );
  });
});
