import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A server-chosen label in a tool result (MIME type, URI) is cut to this, on one line. */
export const RESULT_LABEL_MAX_CHARS = 200;

/**
 * Turns a tool result into the one string the code receives. Structured content wins
 * because it is the machine-readable form a server offers for exactly this purpose; text
 * parts are joined with newlines; anything else is described in a few words rather than
 * passed on, since base64 blobs would only eat the size limit and the model's context.
 */
export function resultToString(result: CallToolResult): string {
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return JSON.stringify(result.structuredContent);
  }
  return contentText(result);
}

/** The text a server sent with `isError: true`, for the refusal message. */
export function errorText(result: CallToolResult): string {
  const text = contentText(result);
  if (text.trim() !== "") return text;
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return JSON.stringify(result.structuredContent);
  }
  return "";
}

function contentText(result: CallToolResult): string {
  // Servers are not trusted to send a well-formed array; the SDK normally defaults it.
  const content: readonly unknown[] = Array.isArray(result.content) ? result.content : [];
  return content.map(describePart).join("\n");
}

function describePart(part: unknown): string {
  if (typeof part !== "object" || part === null) return "[unrecognised content]";
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case "text":
      return typeof p.text === "string" ? p.text : "";
    case "image":
    case "audio":
      return `[${p.type} ${label(p.mimeType)}, ${base64Bytes(p.data)} bytes]`;
    case "resource_link":
      return `[resource link ${label(p.uri)}]`;
    case "resource":
      return describeResource(p.resource);
    default:
      return `[${typeof p.type === "string" ? label(p.type) : "unrecognised"} content]`;
  }
}

function describeResource(resource: unknown): string {
  if (typeof resource !== "object" || resource === null) return "[resource]";
  const r = resource as Record<string, unknown>;
  // An embedded text resource is text the tool chose to return: pass it on like a text part.
  if (typeof r.text === "string") return r.text;
  const mime = typeof r.mimeType === "string" ? `, ${label(r.mimeType)}` : "";
  return `[resource ${label(r.uri)}${mime}, ${base64Bytes(r.blob)} bytes]`;
}

/** Decoded size of base64 text, without decoding it. */
export function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const clean = data.replace(/[^A-Za-z0-9+/=_-]/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** A server-chosen label (MIME type, URI), kept short and on one line. */
export function label(value: unknown): string {
  if (typeof value !== "string" || value === "") return "unknown";
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  const oneLine = value.replace(/[\u0000-\u001f\u007f]/g, " ");
  const max = RESULT_LABEL_MAX_CHARS;
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}
