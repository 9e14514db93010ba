// The two texts the review compares for a held tool: its description, and everything else of
// its wire definition (input and output schema, annotations, title...) as pretty JSON with
// sorted keys, so a key's position never shows up as a change.

import { visibleText } from "../../../shared/hidden-chars.js";

export interface DefinitionTexts {
  description: string;
  /** The definition without its description, pretty-printed canonical JSON. */
  schema: string;
}

/**
 * What a held tool's review shows for one side (pinned or current); null for "absent". Hidden
 * characters (zero-width, bidi, tag characters) are shown escaped: a change made only of them
 * would otherwise look like no change at all, while the model reads it.
 */
export function definitionTexts(definition: Record<string, unknown> | null): DefinitionTexts {
  if (definition === null) return { description: "", schema: "" };
  const { description, ...rest } = definition;
  return {
    description: visibleText(
      description === undefined
        ? ""
        : typeof description === "string"
          ? description
          : prettyJson(description),
      { multiline: true },
    ),
    schema: visibleText(prettyJson(rest), { multiline: true }),
  };
}

/**
 * JSON with sorted keys, two spaces per level. A definition nested too deep for the stack
 * (a hostile server's) is named, not shown: the page must not break on it.
 */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(sortKeys(value), null, 2) ?? "undefined";
  } catch {
    return "(nested too deeply to show)";
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return sorted;
  }
  return value;
}
