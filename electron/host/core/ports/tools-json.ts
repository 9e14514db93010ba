import type { SandboxTool } from "./run-types.js";

/**
 * The JSON text of frozen tool lists: a catalog's list is serialized once, and a run compares
 * its list's text with what its warm container got staged (byte-identical, or the start line
 * carries the tools). Weak: a catalog's text goes with its list.
 */
const serialized = new WeakMap<readonly SandboxTool[], string>();

/**
 * A tools list as the runner's start and catalog lines carry it (runner-protocol.md), as JSON
 * text. Cached only for a list frozen with its tools (freezeTools): a list that can still
 * change could otherwise be sent with text it no longer matches.
 */
export function toolsJson(tools: readonly SandboxTool[]): string {
  const cached = serialized.get(tools);
  if (cached !== undefined) return cached;
  const text = JSON.stringify(
    tools.map((t) => ({
      name: t.name,
      stub: t.stub,
      description: t.description ?? "",
      schema: t.schema ?? null,
      // Only where true: most tools are not, and every run's start line carries the list.
      ...(t.deprecated === true ? { deprecated: true } : {}),
      ...(t.namespace !== undefined && t.method !== undefined
        ? { ns: t.namespace, fn: t.method }
        : {}),
      ...(t.keywords === undefined ? {} : { kw: t.keywords }),
    })),
  );
  if (Object.isFrozen(tools) && tools.every((t) => Object.isFrozen(t))) serialized.set(tools, text);
  return text;
}

/** Freezes a list and its tools, so toolsJson serializes it once. */
export function freezeTools(tools: SandboxTool[]): readonly SandboxTool[] {
  for (const tool of tools) Object.freeze(tool);
  return Object.freeze(tools);
}
