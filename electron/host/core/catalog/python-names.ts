// MCP tool names are free-form strings; the sandbox exposes each tool as a Python global.
// A name that shadowed a keyword, a builtin or one of the runner's own globals would either
// not parse or silently break the code the model writes, so such names get a trailing `_`.

/** Python 3.13 hard keywords (`keyword.kwlist`). Soft keywords stay usable as names. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

/**
 * `dir(builtins)` of Python 3.13 with `site` loaded (so `exit`, `help`, `license`, ... are in).
 * The dunders of that list are left out: the dunder rule covers them and any future ones.
 */
export const PYTHON_BUILTINS: ReadonlySet<string> = new Set([
  "ArithmeticError",
  "AssertionError",
  "AttributeError",
  "BaseException",
  "BaseExceptionGroup",
  "BlockingIOError",
  "BrokenPipeError",
  "BufferError",
  "BytesWarning",
  "ChildProcessError",
  "ConnectionAbortedError",
  "ConnectionError",
  "ConnectionRefusedError",
  "ConnectionResetError",
  "DeprecationWarning",
  "EOFError",
  "Ellipsis",
  "EncodingWarning",
  "EnvironmentError",
  "Exception",
  "ExceptionGroup",
  "False",
  "FileExistsError",
  "FileNotFoundError",
  "FloatingPointError",
  "FutureWarning",
  "GeneratorExit",
  "IOError",
  "ImportError",
  "ImportWarning",
  "IndentationError",
  "IndexError",
  "InterruptedError",
  "IsADirectoryError",
  "KeyError",
  "KeyboardInterrupt",
  "LookupError",
  "MemoryError",
  "ModuleNotFoundError",
  "NameError",
  "None",
  "NotADirectoryError",
  "NotImplemented",
  "NotImplementedError",
  "OSError",
  "OverflowError",
  "PendingDeprecationWarning",
  "PermissionError",
  "ProcessLookupError",
  "PythonFinalizationError",
  "RecursionError",
  "ReferenceError",
  "ResourceWarning",
  "RuntimeError",
  "RuntimeWarning",
  "StopAsyncIteration",
  "StopIteration",
  "SyntaxError",
  "SyntaxWarning",
  "SystemError",
  "SystemExit",
  "TabError",
  "TimeoutError",
  "True",
  "TypeError",
  "UnboundLocalError",
  "UnicodeDecodeError",
  "UnicodeEncodeError",
  "UnicodeError",
  "UnicodeTranslateError",
  "UnicodeWarning",
  "UserWarning",
  "ValueError",
  "Warning",
  "ZeroDivisionError",
  "_IncompleteInputError",
  "abs",
  "aiter",
  "all",
  "anext",
  "any",
  "ascii",
  "bin",
  "bool",
  "breakpoint",
  "bytearray",
  "bytes",
  "callable",
  "chr",
  "classmethod",
  "compile",
  "complex",
  "copyright",
  "credits",
  "delattr",
  "dict",
  "dir",
  "divmod",
  "enumerate",
  "eval",
  "exec",
  "exit",
  "filter",
  "float",
  "format",
  "frozenset",
  "getattr",
  "globals",
  "hasattr",
  "hash",
  "help",
  "hex",
  "id",
  "input",
  "int",
  "isinstance",
  "issubclass",
  "iter",
  "len",
  "license",
  "list",
  "locals",
  "map",
  "max",
  "memoryview",
  "min",
  "next",
  "object",
  "oct",
  "open",
  "ord",
  "pow",
  "print",
  "property",
  "quit",
  "range",
  "repr",
  "reversed",
  "round",
  "set",
  "setattr",
  "slice",
  "sorted",
  "staticmethod",
  "str",
  "sum",
  "super",
  "tuple",
  "type",
  "vars",
  "zip",
]);

/** Globals the sandbox runner defines next to the tools. */
export const RUNNER_NAMES: ReadonlySet<string> = new Set([
  "ToolError",
  "TOOLS",
  "search_tools",
  "show",
  // Workspaces and attached files (runner.py, "Workspaces and attached files").
  "save",
  "load",
  "attach",
  "WorkspaceError",
  "WORKSPACE",
]);

/**
 * The namespace of the tools when their names carry no server (one server, `serve -- CMD`):
 * `await tools.echo(message="hi")`.
 */
export const SINGLE_SERVER_NAMESPACE = "tools";

/** Joins a server's name and a tool's name when several servers are wrapped. */
export const SERVER_SEPARATOR = "__";

export function isDunder(name: string): boolean {
  return name.length > 4 && name.startsWith("__") && name.endsWith("__");
}

export function isReservedPythonName(name: string): boolean {
  return (
    PYTHON_KEYWORDS.has(name) ||
    PYTHON_BUILTINS.has(name) ||
    RUNNER_NAMES.has(name) ||
    isDunder(name)
  );
}

function isAsciiIdentifierChar(ch: string): boolean {
  return (
    (ch >= "a" && ch <= "z") || (ch >= "A" && ch <= "Z") || (ch >= "0" && ch <= "9") || ch === "_"
  );
}

/**
 * Python accepts non-ASCII identifiers but NFKC-normalises them, so two different MCP names
 * (or a full-width `ｐｒｉｎｔ`) could end up as one Python name behind our back. Keeping to
 * ASCII makes the name we check for clashes the name Python actually binds.
 */
function replaceNonIdentifierChars(name: string): string {
  let out = "";
  for (const ch of name) out += isAsciiIdentifierChar(ch) ? ch : "_";
  return out;
}

function finishIdentifier(sanitised: string): string {
  let name = sanitised === "" ? "_" : sanitised;
  if (/^[0-9]/.test(name)) name = `_${name}`;
  return isReservedPythonName(name) ? `${name}_` : name;
}

/** The Python identifier for one MCP tool name on its own. */
export function toPythonName(toolName: string): string {
  return finishIdentifier(replaceNonIdentifierChars(toolName));
}

/**
 * The Python identifier a tool gets in the catalog. With `prefixWithServer` the reserved-name
 * check runs on the joined name, since that is the one the code binds.
 */
export function pythonNameFor(server: string, tool: string, prefixWithServer: boolean): string {
  if (!prefixWithServer) return toPythonName(tool);
  return finishIdentifier(
    replaceNonIdentifierChars(server) + SERVER_SEPARATOR + replaceNonIdentifierChars(tool),
  );
}

/**
 * How every tool name of `server` starts in the catalog when names carry their server: what
 * the runner matches to tell a down server's tool from a plain undefined name.
 */
export function serverNamePrefix(server: string): string {
  const sanitised = replaceNonIdentifierChars(server);
  const name = sanitised === "" ? "_" : sanitised;
  return (/^[0-9]/.test(name) ? `_${name}` : name) + SERVER_SEPARATOR;
}

/**
 * The namespace a server's tools get in the code: its name made an identifier by the rule tool
 * names follow, or SINGLE_SERVER_NAMESPACE when names carry no server. A trailing `_` is added
 * while it is a name in `taken` (a tool's Python name: a global of its own).
 */
export function namespaceFor(
  server: string,
  prefixWithServer: boolean,
  taken: ReadonlySet<string>,
): string {
  let name = prefixWithServer ? toPythonName(server) : SINGLE_SERVER_NAMESPACE;
  while (taken.has(name)) name += "_";
  return name;
}
