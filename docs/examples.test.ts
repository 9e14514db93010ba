// Which examples the pages and the run_python description hold, as examples.docker.test.ts
// runs them: this pins what counts as an example, so one cannot slip past the run unnoticed.
import { describe, expect, it } from "vitest";
import { describeRunPython } from "../electron/host/core/catalog/run-python-description.js";
import { runPythonExamples } from "../electron/host/core/catalog/description-examples.js";
import { buildCatalog } from "../electron/host/core/catalog/catalog-builder.js";
import { inlineExamples, markdownExamples, pageExamples } from "../test-support/code-examples.js";

describe("code examples", () => {
  it("are python fences and inline code that awaits something; the rest is reference", () => {
    const text = [
      "Use `json.loads`, top-level `await`, `r = await get_item({})` and `TOOLS[name]`.",
      "```python",
      "print(1)",
      "```",
      "```sh",
      "npm test",
      "```",
      "```",
      "await not_an_example()",
      "```",
    ].join("\n");
    expect(markdownExamples("page.md", text)).toEqual([
      { where: "page.md:1", code: "r = await get_item({})" },
      { where: "page.md:2", code: "print(1)" },
    ]);
  });

  it("of the run_python description are exactly runPythonExamples' call and gather", () => {
    const tools = [
      {
        name: "get_item",
        inputSchema: { type: "object", properties: { id: { type: "integer" } } },
      },
    ];
    for (const prefixWithServer of [true, false]) {
      const catalog = buildCatalog([{ server: "shop", tools, allow: null, private: false }], {
        prefixWithServer,
      });
      const examples = runPythonExamples(catalog.tools);
      const description = describeRunPython(catalog, 3_000);
      expect(inlineExamples("description", description).map((e) => e.code)).toEqual([
        examples?.call,
        examples?.gather,
      ]);
    }
    // Without tools, no example: there is nothing to call.
    const empty = describeRunPython(buildCatalog([], { prefixWithServer: false }), 3_000);
    expect(inlineExamples("description", empty)).toEqual([]);
  });

  it("are found in the skill and the docs", () => {
    const where = pageExamples().map((e) => e.where.split(":")[0]);
    expect(where).toContain("skills/codemode/SKILL.md");
    expect(where).toContain("docs/architecture.md");
  });
});
