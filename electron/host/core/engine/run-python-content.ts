// What run_python sends back as its content, and the size of that content, in one place: the
// run's receipt in the audit log measures exactly what the server returns.
//
// The content is what the model reads after every run, so it is plain text, not the result
// as JSON: the printed output as it is, then only the notes that apply (stderr, the error,
// output cut, images). Keys, JSON escaping, durations and call counts would cost the model
// bytes in every run and tell it nothing it acts on; programs read the whole result object in
// the result's _meta (RUN_RESULT_META_KEY).
//
// The printed text is the code's, and may carry what a hostile server returned, so it could
// print a line `[error]` to pass for a section of ours. Rule: our sections and notes always
// start a line with one of MARKERS; a line of stdout, stderr or the error that starts with one
// (after any of Unicode's mandatory line breaks, see LINE_BREAKS) is sent with a space in
// front. A plain print (a number, a Python list `[1, 2]`) is unchanged;
// the result object in _meta keeps the raw text.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RUN_LIMITS } from "../../../../shared/limits.js";
import type { RunResult } from "../../../../shared/run-result.js";
import { imageContentBytes } from "../../../../shared/run-receipt.js";
import { jsonUtf8Bytes } from "../../util/json-bytes.js";

/** The text of a run that printed nothing and raised nothing: an empty text reads as lost. */
export const NO_OUTPUT_TEXT = "(no output)";

/** How each section or note of ours starts its line; nothing the code prints does. */
const MARKERS = [
  "[stderr]",
  "[error]",
  "[output cut:",
  "[images, attached after this text:",
  "[files, attached as links after this text:",
  "[workspace:",
  NO_OUTPUT_TEXT,
] as const;

/**
 * What starts a line for a reader: Unicode's mandatory breaks (UAX #14 classes BK, CR, LF, NL),
 * which a terminal ("\r" alone) and any client that lays text out by Unicode's rules (a
 * browser, so every Electron client, breaks at U+2028) show as a new line.
 */
const LINE_BREAKS: ReadonlySet<string> = new Set([
  "\n",
  "\r",
  "\v",
  "\f",
  "\u0085",
  "\u2028",
  "\u2029",
]);

/**
 * One code point that a reader never sees (Unicode's Default_Ignorable_Code_Point: zero-width
 * space and joiners, BOM, bidi controls, soft hyphen, variation selectors, Hangul fillers...).
 * Tested on a single code point at a time, so the pattern cannot backtrack over the text.
 */
const INVISIBLE = /^\p{Default_Ignorable_Code_Point}$/u;

/** Where the visible part of the line starting at `start` begins: past invisible code points. */
function visibleStart(text: string, start: number): number {
  let at = start;
  while (at < text.length) {
    const point = text.codePointAt(at) ?? 0;
    const char = String.fromCodePoint(point);
    if (!INVISIBLE.test(char)) break;
    at += char.length;
  }
  return at;
}

/**
 * Whether the text from `at` reads as `marker`: its characters in order, with any code points
 * that show nothing between them (`[err\u200bor]` shows as `[error]`). Markers are ASCII; the
 * walk stops at the first visible character that differs, so it never leaves its line.
 */
function readsAs(text: string, at: number, marker: string): boolean {
  let m = 0;
  while (m < marker.length) {
    if (at >= text.length) return false;
    if (text.charCodeAt(at) === marker.charCodeAt(m)) {
      at++;
      m++;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(at) ?? 0);
    if (!INVISIBLE.test(char)) return false;
    at += char.length;
  }
  return true;
}

/** The first characters of MARKERS: text with none of them holds no marker, hidden or not. */
const MARKER_STARTS = [...new Set(MARKERS.map((marker) => marker.charAt(0)))];

/**
 * The text with a space before each marker that starts a line as a reader sees it: right at
 * the line's start, or after code points that show nothing, or with such code points inside it
 * (`print("\u200b[error]")` or `print("[err\u200bor]")` reads as a line starting with our
 * [error] section in every client).
 */
export function neutraliseMarkers(text: string): string {
  // Most output holds no marker at all: then it goes out as it is, with no walk.
  if (!MARKER_STARTS.some((start) => text.includes(start))) return text;
  // One pass; a marker is looked for only where a line's visible text starts, and the invisible
  // code points before it are walked once (they start no line), those inside a marker once per
  // marker at most, so the cost stays linear.
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (i !== 0 && !LINE_BREAKS.has(text.charAt(i - 1))) continue;
    const visible = visibleStart(text, i);
    if (MARKERS.some((marker) => readsAs(text, visible, marker))) {
      out += `${text.slice(from, visible)} `;
      from = visible;
    }
  }
  return out + text.slice(from);
}

const kib = (bytes: number): string => `${bytes / 1024} KiB`;

/** A section after the output: its label on a line of its own, then its text. */
function section(label: string, text: string): string {
  return `[${label}]\n${text.endsWith("\n") ? text : `${text}\n`}`;
}

/**
 * The model's view of a run: stdout as it is; then, only when present, `[stderr]` and
 * `[error]` sections and one-line notes for cut output, attached images and files, and what
 * became of the previous run's workspace when its keep differed from its result. The error already
 * says why a run was stopped (deadline, memory, call budget...), so the stop reason and exit
 * code are not repeated. A run with none of these reads NO_OUTPUT_TEXT. Printed lines that
 * start like a marker get a space in front (see neutraliseMarkers).
 */
export function runPythonText(result: RunResult): string {
  const parts: string[] = [];
  if (result.stdout !== "") parts.push(neutraliseMarkers(result.stdout));
  if (result.stderr !== "") parts.push(section("stderr", neutraliseMarkers(result.stderr)));
  if (result.error !== null) parts.push(section("error", neutraliseMarkers(result.error)));
  if (result.truncated) {
    parts.push(
      `[output cut: a run keeps the first ${kib(RUN_LIMITS.stdoutKeptBytes)} of stdout and ` +
        `${kib(RUN_LIMITS.stderrKeptBytes)} of stderr]\n`,
    );
  }
  if (result.images.length > 0) {
    const listed = result.images.map((i) => `${i.name} ${i.width}x${i.height}`).join(", ");
    parts.push(`[images, attached after this text: ${listed}]\n`);
  }
  const files = result.files ?? [];
  if (files.length > 0) {
    const listed = files.map((f) => `${f.name} (${f.bytes} bytes)`).join(", ");
    parts.push(`[files, attached as links after this text: ${listed}]\n`);
  }
  // The previous run of this workspace was told its writes were kept, and its keep, once its
  // container had stopped, found otherwise: this run is the first to hear of it.
  const notice = result.workspace?.notice;
  if (notice !== undefined) parts.push(`[workspace: ${notice}]\n`);
  if (parts.length === 0) return NO_OUTPUT_TEXT;
  // Each section starts on a line of its own, whether or not the output ended with one.
  return parts.reduce(
    (text, part) => (text === "" || text.endsWith("\n") ? text : `${text}\n`) + part,
    "",
  );
}

/**
 * The text first (clients that show one item show it), then each image the code attached, then
 * a link to each file it attached (read with resources/read by the same client).
 */
export function runPythonContent(
  result: RunResult,
  pngs: readonly Buffer[],
): CallToolResult["content"] {
  return [
    { type: "text", text: runPythonText(result) },
    ...pngs.map((png) => ({
      type: "image" as const,
      data: png.toString("base64"),
      mimeType: "image/png",
    })),
    ...(result.files ?? []).map(fileLink),
  ];
}

/** A file the code attached, as a resource_link item. */
function fileLink(file: NonNullable<RunResult["files"]>[number]) {
  return {
    type: "resource_link" as const,
    uri: file.uri,
    name: file.name,
    mimeType: file.mimeType,
    size: file.bytes,
  };
}

/**
 * UTF-8 bytes of runPythonContent's JSON for this result, its images counted from their sizes
 * (base64 needs no escaping), so the PNGs need not be at hand or encoded again.
 */
export function runPythonContentBytes(result: RunResult): number {
  const text = jsonUtf8Bytes([{ type: "text", text: runPythonText(result) }]);
  // Each image adds a comma and its item to the array; the receipt takes the same sum away.
  const withImages = result.images.reduce(
    (total, image) => total + imageContentBytes(image.bytes),
    text,
  );
  // A link is small: its JSON is counted as it is, a comma before it.
  return (result.files ?? []).reduce(
    (total, file) => total + 1 + jsonUtf8Bytes(fileLink(file)),
    withImages,
  );
}
