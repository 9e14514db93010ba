// How the namespaced form reads a successful result, beside the string the `params: dict` form
// gets (tool-result.ts): structured content as a value (checked against the tool's output
// schema, as MCP asks of clients), a single text item that may be JSON, plain text, or content
// items as small objects. Never base64 but an image's own data, which show() can attach.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import type { ResultForm, ResultItem } from "../ports/run-types.js";
import { MiB } from "../../util/units.js";
import { argumentProblems } from "./argument-problems.js";
import { base64Bytes, label } from "./tool-result.js";

/**
 * An image in a result reaches the code with its data (for show()) only up to this size, and
 * only while a result's images stay within RESULT_IMAGES_DATA_MAX_BYTES together: what show()
 * itself attaches at most. Past it the code gets the image's kind, type and size.
 */
export const RESULT_IMAGE_DATA_MAX_BYTES = 1 * MiB;
export const RESULT_IMAGES_DATA_MAX_BYTES = 2 * MiB;

function startsJsonContainer(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b || c === 0x5b; // { or [
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/**
 * The bytes base64 text stands for at its full length. The text goes to the sandbox as the server
 * sent it, characters base64 skips included, so the caps hold for this, not for what it decodes to.
 */
function sentBytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor(((data.length - padding) * 3) / 4);
}

/** One content item as a small object; undefined for a text one (the caller keeps its text). */
function itemOf(part: unknown, room: { left: number }): ResultItem {
  if (!isObject(part)) return { kind: "other", bytes: 0 };
  switch (part.type) {
    case "text":
      return { kind: "text", text: typeof part.text === "string" ? part.text : "" };
    case "image": {
      const bytes = base64Bytes(part.data);
      const item: ResultItem = { kind: "image", mime: label(part.mimeType), bytes };
      const sent = typeof part.data === "string" ? sentBytes(part.data) : 0;
      if (
        typeof part.data === "string" &&
        sent <= RESULT_IMAGE_DATA_MAX_BYTES &&
        sent <= room.left
      ) {
        room.left -= sent;
        return { ...item, data: part.data };
      }
      return item;
    }
    case "audio":
      return { kind: "audio", mime: label(part.mimeType), bytes: base64Bytes(part.data) };
    case "resource_link":
      return {
        kind: "resource_link",
        uri: label(part.uri),
        ...(typeof part.mimeType === "string" ? { mime: label(part.mimeType) } : {}),
        bytes: 0,
      };
    case "resource": {
      const resource = isObject(part.resource) ? part.resource : {};
      // An embedded text resource is text the tool chose to return, as the string form says.
      if (typeof resource.text === "string") return { kind: "text", text: resource.text };
      return {
        kind: "resource",
        uri: label(resource.uri),
        ...(typeof resource.mimeType === "string" ? { mime: label(resource.mimeType) } : {}),
        bytes: base64Bytes(resource.blob),
      };
    }
    default:
      return {
        kind: "other",
        mime: typeof part.type === "string" ? label(part.type) : "unknown",
        bytes: 0,
      };
  }
}

/**
 * The form of a result the bridge lets through (not an error, within the size limit). Cheap on
 * the common path: one look at the content's length and first characters; the output schema
 * is checked only for a tool that declares one.
 */
export function resultForm(tool: CatalogTool, result: CallToolResult): ResultForm {
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    if (tool.validateOutput === null) return { form: "structured" };
    let valid: boolean;
    try {
      valid = tool.validateOutput(structured) === true;
    } catch {
      return { form: "structured", invalid: "it could not be checked against its output schema" };
    }
    if (valid) return { form: "structured" };
    return {
      form: "structured",
      invalid: argumentProblems(tool.validateOutput.errors, structured),
    };
  }
  const content: readonly unknown[] = Array.isArray(result.content) ? result.content : [];
  const only = content.length === 1 ? content[0] : undefined;
  if (isObject(only) && only.type === "text" && typeof only.text === "string")
    return startsJsonContainer(only.text) ? { form: "json" } : {};
  const room = { left: RESULT_IMAGES_DATA_MAX_BYTES };
  const items = content.map((part) => itemOf(part, room));
  if (items.every((item) => item.kind === "text")) return {};
  return { form: "content", items };
}
