import type { CatalogTool } from "../catalog/catalog-types.js";

/**
 * Whether `now`, the catalog's tool of that name now, is still the one a call was checked
 * against (`then`), on every term the checks used: the same server tool, private or not as it
 * was, with the same input schema. A call that waited (for the user, a slot, a restart) must
 * not go out after its tool was marked private, left out, held for review or redefined
 * meanwhile. A rebuild makes new objects for unchanged tools, so identity alone would refuse
 * calls for nothing.
 */
export function sameTerms(then: CatalogTool, now: CatalogTool | undefined): boolean {
  if (now === then) return true;
  if (now === undefined) return false;
  return (
    now.server === then.server &&
    now.tool === then.tool &&
    now.private === then.private &&
    (now.inputSchema === then.inputSchema ||
      JSON.stringify(now.inputSchema) === JSON.stringify(then.inputSchema))
  );
}
