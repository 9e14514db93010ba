// A name the code gets wrong, as the model meets it in the real sandbox: a tool's name without
// its server, a misspelt one (pointed to the current tool, not the deprecated one its server
// keeps), and TOOLS[...] of a name that is no tool's or of a tool held for the user's review.
// The catalog is built as the app builds it, from a toy copy of the filesystem server's tools.
import { expect, it } from "vitest";
import { coldSandbox } from "../../../test-support/cold-sandbox.js";
import { describeEachRuntime, dockerOnRuntimes } from "../../../test-support/docker.js";
import { buildCatalog } from "../core/catalog/catalog-builder.js";
import type { DiscoveredTool } from "../core/catalog/catalog-types.js";
import { catalogSandboxTools } from "../core/catalog/sandbox-tools.js";
import { heldNamedIn } from "../core/engine/held-names.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

const PATH_SCHEMA = { type: "object", properties: { path: { type: "string" } } };

/** The filesystem server's reading tools as it lists them, read_file marked deprecated. */
const FILESYSTEM: DiscoveredTool[] = [
  {
    name: "read_file",
    title: "Read File (Deprecated)",
    description:
      "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
    inputSchema: PATH_SCHEMA,
  },
  { name: "read_text_file", description: "Read a file as text.", inputSchema: PATH_SCHEMA },
  { name: "read_multiple_files", description: "Read several files.", inputSchema: PATH_SCHEMA },
  { name: "write_file", description: "Write a file.", inputSchema: PATH_SCHEMA },
  { name: "list_directory", description: "List a directory.", inputSchema: PATH_SCHEMA },
];

const CATALOG = buildCatalog(
  [
    {
      server: "filesystem",
      tools: FILESYSTEM,
      allow: null,
      private: false,
      held: new Set(["write_file"]),
    },
    {
      server: "memory",
      tools: [
        { name: "read_graph", description: "The whole graph.", inputSchema: { type: "object" } },
      ],
      allow: null,
      private: false,
    },
  ],
  { prefixWithServer: true },
);

describeEachRuntime(docker, "names the code gets wrong, in the sandbox (%s)", (runtime) => {
  const sandbox = coldSandbox(fx!, runtime);

  /** The last line of the error of `code`, run against the catalog as the engine sends it. */
  async function lastErrorLine(code: string): Promise<string> {
    const result = await sandbox.run({
      code,
      deadlineSeconds: 20,
      tools: catalogSandboxTools(CATALOG),
      held: heldNamedIn(code, CATALOG.held),
    });
    expect(result.calls).toBe(0);
    expect(result.error).not.toBeNull();
    return result.error!.trimEnd().split("\n").at(-1)!;
  }

  it("a tool's name without its server says which server's tool to write", async () => {
    expect(await lastErrorLine('await read_text_file({"path": "a"})')).toBe(
      "NameError: name 'read_text_file' is not defined. Did you mean: 'filesystem__read_text_file'?",
    );
    // Inside a function of the code too, and wherever the name is only read.
    expect(await lastErrorLine("def f():\n    return read_graph\nf()")).toBe(
      "NameError: name 'read_graph' is not defined. Did you mean: 'memory__read_graph'?",
    );
  });

  it("a misspelt tool is pointed to the current tool, not the deprecated one it is closest to", async () => {
    // Python's own suggestion is filesystem__read_file, which its server marks deprecated.
    for (const wrong of ["filesystem__read_files", "filesystem__readfile", "read_file"]) {
      expect(await lastErrorLine(`await ${wrong}({"path": "a"})`), wrong).toBe(
        `NameError: name '${wrong}' is not defined. Did you mean: 'filesystem__read_text_file'?`,
      );
    }
    // A misspelt server too.
    expect(await lastErrorLine('await filesytem__list_directory({"path": "a"})')).toBe(
      "NameError: name 'filesytem__list_directory' is not defined. Did you mean: 'filesystem__list_directory'?",
    );
  });

  it("names that are no tool's keep Python's own help", async () => {
    expect(await lastErrorLine("prnt(1)")).toBe(
      "NameError: name 'prnt' is not defined. Did you mean: 'print'?",
    );
    expect(await lastErrorLine("await asyncio.sleep(0)")).toBe(
      "NameError: name 'asyncio' is not defined. Did you forget to import 'asyncio'?",
    );
    expect(await lastErrorLine("results = 1\nprint(result)")).toBe(
      "NameError: name 'result' is not defined. Did you mean: 'results'?",
    );
  });

  it("TOOLS[...] of no tool says what to write; of a held tool, that it is held for review", async () => {
    expect(await lastErrorLine('print(TOOLS["read_text_file"])')).toBe(
      "KeyError: no tool is named 'read_text_file'. Did you mean: 'filesystem__read_text_file'?",
    );
    expect(await lastErrorLine('print(TOOLS["zebra"])')).toBe(
      `KeyError: no tool is named 'zebra'; search_tools("words") lists the tools that match`,
    );
    const held = await lastErrorLine('print(TOOLS["filesystem__write_file"])');
    expect(held).toMatch(
      /^KeyError: filesystem__write_file: .* is held .* until the user reviews it in Code Mode\.$/,
    );
    // Still a KeyError keyed by the name, for code that catches it.
    const result = await sandbox.run({
      code: 'try:\n    TOOLS["zebra"]\nexcept KeyError as e:\n    print(e.args[0])',
      tools: catalogSandboxTools(CATALOG),
    });
    expect(result).toMatchObject({ stdout: "zebra\n", error: null });
  });
});
