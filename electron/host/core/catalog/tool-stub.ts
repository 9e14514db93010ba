import { renderParamList, renderParamNames } from "./schema-render.js";
import { renderParamDocs, renderReturnType, renderSignatureParams } from "./tool-signature.js";
import { firstSentence, toWellFormed } from "../../util/text-cut.js";

/** A summary line keeps the first sentence of the description, cut to this. */
export const SUMMARY_SENTENCE_MAX_CHARS = 160;

export const PRIVATE_MARK = "[private]";

export interface StubSource {
  pyName: string;
  /**
   * How the code calls it with keyword arguments: `notes.search`. Absent for a tool that has no
   * method (its stub is the `params: dict` form).
   */
  callName?: string | undefined;
  description: string;
  private: boolean;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | null | undefined;
}

/** The docstring of a tool with no description and no documented parameter. */
export const NO_DESCRIPTION = "(no description)";

const INDENT = "    ";

// Control characters other than tab cannot all stand raw in Python source (NUL is refused
// outright), and line breaks are handled by splitting into lines first.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/**
 * One line of text made safe inside a `"""` docstring, so that the stub, read as Python, is
 * exactly one function whose docstring holds the text. Every backslash is doubled, so none of
 * the server's can start an escape or swallow a quote; every third quote of a run is escaped,
 * so no run of three unescaped quotes can close the string early.
 */
export function docstringLine(text: string): string {
  return toWellFormed(text)
    .replace(/\\/g, "\\\\")
    .replace(CONTROL, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`)
    .replace(/"""/g, '""\\"');
}

function descriptionLines(description: string): string[] {
  const lines = description.split(/\r\n|\r|\n/).map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * What TOOLS[name] shows and the run_python description carries while it fits: the typed
 * signature, then the description and one line per documented parameter in the docstring. The
 * def line is one line whatever the server sent (every name and literal in it is quoted or an
 * identifier); the docstring holds exactly the server's text (docstringLine).
 */
export function renderStub(tool: StubSource): string {
  if (tool.callName === undefined) return renderDictStub(tool);
  const body: string[] = [];
  if (tool.private) body.push(PRIVATE_MARK);
  body.push(...descriptionLines(tool.description));
  const docs = renderParamDocs(tool.inputSchema);
  if (docs.length > 0) {
    if (body.length > 0) body.push("");
    body.push(...docs);
  }
  if (body.length === 0) body.push(NO_DESCRIPTION);
  const params = renderSignatureParams(tool.inputSchema);
  // No annotation where the tool declares no output schema: its result is what it parses to.
  const returns = tool.outputSchema == null ? "" : ` -> ${renderReturnType(tool.outputSchema)}`;
  const [first = "", ...rest] = body.map((line) => (line === "" ? "" : docstringLine(line)));
  // PEP 257's layout: the docstring opens on its first line (one line fewer per stub).
  return [
    `async def ${tool.callName}(${params})${returns}:`,
    `${INDENT}"""${first}`,
    ...rest.map((line) => (line === "" ? "" : INDENT + line)),
    `${INDENT}"""`,
  ].join("\n");
}

/** The stub of the `params: dict` form: the one argument, and its parameters in the docstring. */
export function renderDictStub(tool: StubSource): string {
  const body: string[] = [];
  if (tool.private) body.push(PRIVATE_MARK);
  const description = descriptionLines(tool.description);
  if (description.length > 0) body.push(...description, "");
  const params = renderParamList(tool.inputSchema);
  body.push(`params: ${params === "" ? "none" : params}`);
  return docstringStub(`async def ${tool.pyName}(params: dict) -> str:`, body);
}

function docstringStub(head: string, body: readonly string[]): string {
  const docstring = body.map((line) => (line === "" ? "" : INDENT + docstringLine(line)));
  return [head, `${INDENT}"""`, ...docstring, `${INDENT}"""`].join("\n");
}

/** `name(a, b) [private]: first sentence`, on one line whatever the server sent. */
export function renderSummary(tool: StubSource): string {
  const mark = tool.private ? ` ${PRIVATE_MARK}` : "";
  const sentence = firstSentence(tool.description, SUMMARY_SENTENCE_MAX_CHARS);
  const head = `${tool.callName ?? tool.pyName}(${renderParamNames(tool.inputSchema)})${mark}`;
  return sentence === "" ? head : `${head}: ${sentence}`;
}
