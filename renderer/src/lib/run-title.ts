// What tells one run from another in the Audit page: not its first line of code (most runs
// start with "import asyncio"), but what the model said it does (its first comment) or the
// tools it calls; and, for a run that raised, the exception in one line, never the traceback's
// caret line. The code is the model's and the error the sandbox's: both are scanned by plain
// loops over a bounded prefix, never by a regular expression that could backtrack.
import type { RunFinishedEntry } from "../../../shared/audit-entry.js";

/** The most of a run's code looked at for its title. */
export const TITLE_SCAN_MAX_CHARS = 64 * 1024;
/** A title or an error line longer than this is cut, with "…". */
export const TITLE_MAX_CHARS = 120;
/** Tools named in a title found in the code; the rest are counted. */
export const TITLE_TOOLS_NAMED = 3;

function cut(text: string, max = TITLE_MAX_CHARS): string {
  const points = Array.from(text.length > max * 2 ? text.slice(0, max * 2) : text);
  return points.length > max ? `${points.slice(0, max - 1).join("")}…` : text;
}

function isIdentStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= "0" && c <= "9");
}

/** Modules whose awaited functions are not tools (`await asyncio.gather(...)`). */
const NOT_SERVERS: ReadonlySet<string> = new Set(["asyncio", "self", "super"]);

/** How the title names a tool: `filesystem__read_file` reads as `filesystem.read_file`. */
export function toolLabel(pyName: string): string {
  const at = pyName.indexOf("__");
  return at > 0 && at < pyName.length - 2
    ? `${pyName.slice(0, at)}.${pyName.slice(at + 2)}`
    : pyName;
}

/**
 * The tools the code calls, in order of first appearance, as `server.tool`: a name with `__`
 * called (`filesystem__read_file(`), or an awaited `server.tool(` call. Comments and strings are
 * not read apart: a title is a hint, and the run's calls in its detail are the record.
 */
export function toolsInCode(code: string): string[] {
  const text = code.length > TITLE_SCAN_MAX_CHARS ? code.slice(0, TITLE_SCAN_MAX_CHARS) : code;
  const found: string[] = [];
  const add = (name: string) => {
    if (!found.includes(name)) found.push(name);
  };
  let previousWord = "";
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (!isIdentStart(c) || (i > 0 && isIdentPart(text.charAt(i - 1)))) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < text.length && isIdentPart(text.charAt(end))) end++;
    const word = text.slice(i, end);
    let after = end;
    while (text.charAt(after) === " ") after++;
    if (text.charAt(after) === "(" && word.indexOf("__") > 0 && !word.startsWith("__")) {
      add(toolLabel(word));
    } else if (previousWord === "await" && text.charAt(after) === "." && !NOT_SERVERS.has(word)) {
      let start = after + 1;
      while (text.charAt(start) === " ") start++;
      let stop = start;
      while (stop < text.length && isIdentPart(text.charAt(stop))) stop++;
      let paren = stop;
      while (text.charAt(paren) === " ") paren++;
      if (stop > start && isIdentStart(text.charAt(start)) && text.charAt(paren) === "(") {
        add(`${word}.${text.slice(start, stop)}`);
      }
    }
    previousWord = word;
    i = end;
  }
  return found;
}

/** The first comment line that says something (not a shebang, not an encoding line). */
function firstComment(code: string): string | null {
  let from = 0;
  while (from < code.length && from < TITLE_SCAN_MAX_CHARS) {
    let end = code.indexOf("\n", from);
    if (end === -1) end = code.length;
    const line = code.slice(from, end).trim();
    from = end + 1;
    if (!line.startsWith("#") || line.startsWith("#!")) continue;
    let text = line;
    while (text.startsWith("#")) text = text.slice(1);
    text = text.trim();
    if (text === "" || text.startsWith("-*-") || text.startsWith("type:")) continue;
    return text;
  }
  return null;
}

/** The first line that is code and not an import: what the run does first. */
function firstStatement(code: string): string | null {
  let first: string | null = null;
  let from = 0;
  while (from < code.length && from < TITLE_SCAN_MAX_CHARS) {
    let end = code.indexOf("\n", from);
    if (end === -1) end = code.length;
    const line = code.slice(from, end).trim();
    from = end + 1;
    if (line === "" || line.startsWith("#")) continue;
    first ??= line;
    if (line.startsWith("import ") || line.startsWith("from ")) continue;
    return line;
  }
  return first;
}

/**
 * A run's title from its code: its first comment, else the tools it calls ("calls
 * filesystem.read_text_file, memory.search_nodes"), else its first statement past the imports.
 */
export function runTitle(code: string): string {
  const comment = firstComment(code);
  if (comment !== null) return cut(comment);
  const tools = toolsInCode(code);
  if (tools.length > 0) {
    const named = tools.slice(0, TITLE_TOOLS_NAMED).join(", ");
    const more = tools.length - TITLE_TOOLS_NAMED;
    return cut(`calls ${named}${more > 0 ? ` and ${more} more` : ""}`);
  }
  return cut(firstStatement(code) ?? "");
}

/** The tools a finished run called, with counts: "filesystem.read_text_file ×3, memory.read_graph". */
export function calledToolsText(entry: RunFinishedEntry): string {
  const tools = entry.calledTools ?? [];
  if (tools.length === 0) return "";
  const named = tools
    .map((t) => `${toolLabel(t.tool)}${t.calls > 1 ? ` ×${t.calls}` : ""}`)
    .join(", ");
  const others = entry.calls - tools.reduce((sum, t) => sum + t.calls, 0);
  return others > 0 ? `${named} and ${others} more call${others === 1 ? "" : "s"}` : named;
}

/** A line made only of carets, tildes and spaces: Python's pointer under the failing code. */
function isMarkerLine(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === "") return false;
  for (const c of trimmed) if (c !== "^" && c !== "~" && c !== " ") return false;
  return true;
}

/**
 * The exception in one line: "ValueError: bad value". From the type and message the runner
 * reported; for older entries, the traceback's last line that is neither indented (a frame, its
 * source, the caret line under it) nor a marker.
 */
export function errorLine(entry: RunFinishedEntry): string | null {
  if (entry.errorType !== undefined) {
    const message = (entry.errorMessage ?? "").trim();
    const first = message.split("\n", 1)[0]?.trim() ?? "";
    return cut(first === "" ? entry.errorType : `${entry.errorType}: ${first}`);
  }
  if (entry.error === null) return null;
  const lines = entry.error.slice(-TITLE_SCAN_MAX_CHARS).split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.trim() === "" || isMarkerLine(line)) continue;
    if (line.startsWith(" ") || line.startsWith("\t")) continue;
    return cut(line.trim());
  }
  return null;
}
