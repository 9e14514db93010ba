import { describe, expect, it } from "vitest";
import {
  PYTHON_KEYWORDS,
  RUNNER_NAMES,
  isReservedPythonName,
  pythonNameFor,
  serverNamePrefix,
  toPythonName,
} from "./python-names.js";

describe("python names", () => {
  it("turns characters that are not identifier characters into underscores", () => {
    expect(toPythonName("get-weather")).toBe("get_weather");
    expect(toPythonName("a.b/c d")).toBe("a_b_c_d");
    expect(toPythonName("already_fine")).toBe("already_fine");
  });

  it("keeps to ASCII so Python's NFKC folding cannot merge or disguise names", () => {
    expect(toPythonName("café")).toBe("caf_");
    expect(toPythonName("ｐｒｉｎｔ")).not.toBe("print");
    expect(toPythonName("a😀b")).toBe("a_b");
  });

  it("prefixes a leading digit and names the empty name", () => {
    expect(toPythonName("3d-render")).toBe("_3d_render");
    expect(toPythonName("")).toBe("_");
    expect(toPythonName("-")).toBe("_");
  });

  it("adds a trailing underscore to hard keywords but leaves soft keywords", () => {
    for (const keyword of ["class", "async", "await", "None", "True", "False", "lambda"]) {
      expect(toPythonName(keyword)).toBe(`${keyword}_`);
    }
    expect(toPythonName("match")).toBe("match");
    expect(toPythonName("case")).toBe("case");
    expect(toPythonName("_")).toBe("_");
  });

  it("adds a trailing underscore to builtins", () => {
    const builtins = ["print", "list", "open", "id", "type", "input", "exec", "eval", "help"];
    for (const builtin of [...builtins, "PythonFinalizationError", "ExceptionGroup"]) {
      expect(toPythonName(builtin)).toBe(`${builtin}_`);
    }
  });

  it("adds a trailing underscore to dunders, only to dunders", () => {
    expect(toPythonName("__builtins__")).toBe("__builtins___");
    expect(toPythonName("__import__")).toBe("__import___");
    expect(toPythonName("__x__")).toBe("__x___");
    expect(toPythonName("__init")).toBe("__init");
    expect(toPythonName("__")).toBe("__");
  });

  it("adds a trailing underscore to the runner's own names", () => {
    expect(toPythonName("ToolError")).toBe("ToolError_");
    expect(toPythonName("TOOLS")).toBe("TOOLS_");
    expect(toPythonName("search_tools")).toBe("search_tools_");
    expect(toPythonName("search-tools")).toBe("search_tools_");
    expect(toPythonName("tools")).toBe("tools");
    expect(toPythonName("save")).toBe("save_");
    expect([...RUNNER_NAMES].sort()).toEqual([
      "TOOLS",
      "ToolError",
      "WORKSPACE",
      "WorkspaceError",
      "attach",
      "load",
      "save",
      "search_tools",
      "show",
    ]);
  });

  it("joins server and tool with two underscores, sanitising both", () => {
    expect(pythonNameFor("notes", "search", true)).toBe("notes__search");
    expect(pythonNameFor("my-server", "get-weather", true)).toBe("my_server__get_weather");
    expect(pythonNameFor("notes", "search", false)).toBe("search");
  });

  it("applies the digit and reserved rules to the joined name", () => {
    expect(pythonNameFor("1password", "list", true)).toBe("_1password__list");
    // Neither `_` nor `x__` is a dunder, but `___x__` is.
    expect(toPythonName("x__")).toBe("x__");
    expect(pythonNameFor("_", "x__", true)).toBe("___x___");
    expect(pythonNameFor("class", "x", true)).toBe("class__x");
  });

  it("gives names that meet through the separator the same identifier", () => {
    expect(pythonNameFor("a_", "b", true)).toBe(pythonNameFor("a", "_b", true));
  });

  it("exports reserved sets that cover Python 3.13's keywords", () => {
    expect(PYTHON_KEYWORDS.size).toBe(35);
    expect(isReservedPythonName("await")).toBe(true);
    expect(isReservedPythonName("weather")).toBe(false);
  });

  it("a server's name prefix starts every tool name it gets with servers named", () => {
    for (const server of ["memory", "my-server", "1password", "é", "class", "_", "a.b"]) {
      for (const tool of ["read", "class", "__init__", "9lives", "x"]) {
        expect(pythonNameFor(server, tool, true).startsWith(serverNamePrefix(server))).toBe(true);
      }
    }
    expect(serverNamePrefix("my-server")).toBe("my_server__");
    expect(serverNamePrefix("1password")).toBe("_1password__");
  });
});
