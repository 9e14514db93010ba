// The tool names the run_python description shows the model, as it would copy them: every call
// form `X.Y(` (awaited, in the parallel example, in the index's lead, in a stub's def line), every
// `TOOLS["X.Y"]` and every dict-form call `name({`. Each must be a name the code really has; the
// unit test checks them against the catalog, the end-to-end tests in the sandbox itself.

/** Objects of the libraries the description names: `asyncio.gather(`, `plt.show(`. */
const LIBRARIES = new Set(["asyncio", "plt"]);

export interface DescriptionNames {
  /** `shop.add_item`, as awaited (`await shop.add_item(`), but the libraries'. */
  awaited: string[];
  /** Every `X.Y(` but the libraries', the awaited ones among them. */
  calls: string[];
  /** The keys of `TOOLS["..."]`. */
  lookups: string[];
  /** The names called with a dict: `shop__add_item({`. */
  dictCalls: string[];
}

export function descriptionNames(description: string): DescriptionNames {
  const first = (pattern: RegExp): string[] =>
    [...description.matchAll(pattern)].map((m) => m[1] ?? "");
  const tools = (names: string[]): string[] =>
    names.filter((name) => !LIBRARIES.has(name.split(".")[0] ?? ""));
  return {
    awaited: tools(first(/await ([A-Za-z_]\w*\.[A-Za-z_]\w*)\(/g)),
    calls: tools(first(/(?<!\w)([A-Za-z_]\w*\.[A-Za-z_]\w*)\(/g)),
    lookups: first(/TOOLS\["([^"]*)"\]/g),
    dictCalls: first(/(?<!\w)([A-Za-z_]\w*)\(\{/g),
  };
}

/**
 * Python that prints, as JSON, every name of `names` the run's globals do not have: a call form
 * whose object lacks the method, a TOOLS key that is none, a dict-form name that is no global.
 * `[]` when every one resolves.
 */
export function unresolvedNamesCode(names: DescriptionNames): string {
  const calls = [...new Set([...names.calls, ...names.awaited])];
  return `import json
missing = []
for name in ${JSON.stringify(calls)}:
    ns, _, fn = name.partition(".")
    if not hasattr(globals().get(ns), fn):
        missing.append(name)
for key in ${JSON.stringify(names.lookups)}:
    try:
        TOOLS[key]
    except KeyError:
        missing.append("TOOLS " + key)
for name in ${JSON.stringify(names.dictCalls)}:
    if not callable(globals().get(name)):
        missing.append(name + "({")
print(json.dumps(missing))`;
}
