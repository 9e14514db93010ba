// Whether a changed server entry still starts the same process.

import { sameList } from "../../../shared/same-list.js";
import type { ServerEntry } from "../core/ports/server-config-types.js";

/** True when two entries start the same process: only then can a running server be kept. */
export function sameLaunch(a: ServerEntry, b: ServerEntry): boolean {
  const aEnv = Object.keys(a.env).sort();
  const bEnv = Object.keys(b.env).sort();
  return (
    a.command === b.command &&
    sameList(a.args, b.args) &&
    sameList(aEnv, bEnv) &&
    aEnv.every((key) => a.env[key] === b.env[key])
  );
}
