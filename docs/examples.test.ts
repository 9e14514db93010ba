// Which examples the pages and the run_python description hold, as examples.docker.test.ts
// runs them: this pins what counts as an example, so one cannot slip past the run unnoticed.
import { describe, expect, it } from "vitest";
import {
  describeRunPython,
  RUN_PYTHON_EXAMPLES,
} from "../electron/host/core/catalog/run-python-description.js";
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

  it("of the run_python description are exactly RUN_PYTHON_EXAMPLES", () => {
    const description = describeRunPython(buildCatalog([], { prefixWithServer: false }), 3_000);
    expect(inlineExamples("description", description).map((e) => e.code)).toEqual(
      Object.values(RUN_PYTHON_EXAMPLES),
    );
  });

  it("are found in the skill and the docs", () => {
    const where = pageExamples().map((e) => e.where.split(":")[0]);
    expect(where).toContain("skills/codemode/SKILL.md");
    expect(where).toContain("docs/architecture.md");
  });
});
