// The code examples of the pages a person or a model reads, found the way the pages mark them:
// every fenced block whose info string is `python`, and every inline code span that awaits
// something (`r = await notes__search({...})`), is an example meant to run as written. Other
// inline code (a name, `TOOLS[name]`, `json.loads`) is a reference, not an example.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./processes.js";

export interface CodeExample {
  /** Where it is: `docs/architecture.md:165`. */
  where: string;
  code: string;
}

const FENCE = "```";

/** Whether an inline span is a statement that awaits something, not the word `await` alone. */
function awaits(span: string): boolean {
  const at = span.indexOf("await ");
  return at !== -1 && span.slice(at + "await ".length).trim() !== "";
}

/** The inline code spans of one line of prose (single backticks, as the pages write them). */
function inlineSpans(line: string): string[] {
  const parts = line.split("`");
  // Odd parts are inside backticks; an unmatched last backtick opens nothing.
  return parts.filter((_, i) => i % 2 === 1 && i < parts.length - 1);
}

/** The examples of one Markdown text, `name` naming it in `where`. */
export function markdownExamples(name: string, text: string): CodeExample[] {
  const examples: CodeExample[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trimStart().startsWith(FENCE)) {
      const info = line.trimStart().slice(FENCE.length).trim();
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !(lines[i] ?? "").trimStart().startsWith(FENCE); i++) {
        body.push(lines[i] ?? "");
      }
      if (info === "python")
        examples.push({ where: `${name}:${start + 1}`, code: body.join("\n") });
      continue;
    }
    for (const span of inlineSpans(line)) {
      if (awaits(span)) examples.push({ where: `${name}:${i + 1}`, code: span });
    }
  }
  return examples;
}

/** The inline examples of a text that is not Markdown (the run_python description). */
export function inlineExamples(name: string, text: string): CodeExample[] {
  return markdownExamples(name, text.replaceAll(FENCE, ""));
}

/** The pages whose examples must run: the README, every page of docs/, and the skill. */
export function examplePages(): string[] {
  const docs = readdirSync(path.join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join("docs", name));
  return ["README.md", ...docs, path.join("skills", "codemode", "SKILL.md")];
}

/** Every example of every page in examplePages. */
export function pageExamples(): CodeExample[] {
  return examplePages().flatMap((page) =>
    markdownExamples(page, readFileSync(path.join(repoRoot, page), "utf8")),
  );
}
