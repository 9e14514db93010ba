import { isJsonObject, own, type JsonObject } from "./schema-render.js";

/** Resolves a `#/a/b` pointer inside `root`; undefined for anything else. */
export function resolveLocalRef(root: JsonObject, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(node))
      node = /^(0|[1-9][0-9]*)$/.test(token) ? node[Number(token)] : undefined;
    else if (isJsonObject(node)) node = own(node, token);
    else return undefined;
  }
  return node;
}
