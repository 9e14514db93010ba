// Whether a server marks one of its tools deprecated. MCP has no field for it; servers say it in
// words: the description ("DEPRECATED: Use read_text_file instead."), the title ("Read File
// (Deprecated)"), or an annotation of their own (`deprecated: true`). The runner then prefers
// other tools when it suggests a name for one the code got wrong.
import type { DiscoveredTool } from "./catalog-types.js";

/** How much of a description is read for the word: servers say it early, when they say it. */
const DESCRIPTION_SCANNED_CHARS = 2_048;

const WORD = "deprecated";

/**
 * Whether `text` has the word "deprecated" (any case) not right after a letter or a hyphen, so
 * "non-deprecated" and "undeprecated" do not count. A plain scan with indexOf: linear, no regex.
 */
export function saysDeprecated(text: string): boolean {
  const lower = text.toLowerCase();
  for (let at = lower.indexOf(WORD); at !== -1; at = lower.indexOf(WORD, at + 1)) {
    const before = at === 0 ? "" : lower.charAt(at - 1);
    if (before === "" || !/[a-z-]/.test(before)) return true;
  }
  return false;
}

export function isDeprecated(tool: DiscoveredTool): boolean {
  const annotations = tool.annotations;
  if (annotations?.deprecated === true) return true;
  const texts = [
    typeof tool.description === "string"
      ? tool.description.slice(0, DESCRIPTION_SCANNED_CHARS)
      : "",
    typeof tool.title === "string" ? tool.title.slice(0, DESCRIPTION_SCANNED_CHARS) : "",
    typeof annotations?.title === "string"
      ? annotations.title.slice(0, DESCRIPTION_SCANNED_CHARS)
      : "",
  ];
  return texts.some(saysDeprecated);
}
