// Whether a tool's own name can be offered at all: one measure for the pins (which pin and
// hold only what it lets through) and the catalog (which leaves the rest out, saying why), so
// the two can never disagree on a name. A name is measured in UTF-16 units, as everything else
// in the host measures text, against the limit on the name the code calls.

import type { LeftOutReason } from "../../../../shared/api/api-views.js";
import { codePointLabel, firstHiddenChar } from "../../../../shared/hidden-chars.js";
import { PROTOCOL_LIMITS } from "../../../../shared/limits.js";

/** Why a tool name is refused, or null when it may be pinned and offered. */
export function toolNameProblem(
  name: string,
): (LeftOutReason & { code: "name_too_long" | "name_hidden_chars" }) | null {
  const hidden = firstHiddenChar(name);
  if (hidden !== null) {
    return {
      code: "name_hidden_chars",
      text:
        "its name contains invisible, control or text-direction characters " +
        `(${codePointLabel(hidden)}), so it would not read as what it is`,
    };
  }
  const max = PROTOCOL_LIMITS.toolNameMaxChars;
  if (name.length <= max) return null;
  return { code: "name_too_long", text: `its name is longer than ${max} characters` };
}
