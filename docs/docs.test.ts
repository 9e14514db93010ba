import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The README is the first page a user reads: short, and every page it sends them to is there.
const README_MAX_LINES = 300;
/** Prose lines stay readable in a terminal; table rows may run longer. */
const README_PROSE_LINE_MAX_CHARS = 200;

const docsDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(docsDir);
const pages = [
  path.join(root, "README.md"),
  ...readdirSync(docsDir)
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join(docsDir, name)),
];

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replaceAll(" ", "-");
}

function anchorsIn(file: string): Set<string> {
  const headings = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("#"))
    .map((line) => line.slice(line.indexOf(" ") + 1).trim());
  return new Set(headings.map(anchorOf));
}

/** Every `[text](target)` and `![alt](target)` of a page that is not a web address. */
function relativeLinks(text: string): string[] {
  const links = [...text.matchAll(/\]\(([^()\s]+)\)/g)].map((match) => match[1] ?? "");
  return links.filter((link) => !/^[a-z]+:/.test(link));
}

describe("README and docs/", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");

  it(`keeps the README within ${README_MAX_LINES} lines`, () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it(`keeps the README's prose lines within ${README_PROSE_LINE_MAX_CHARS} characters`, () => {
    const long = readme
      .split("\n")
      .filter((line) => !line.startsWith("|") && line.length > README_PROSE_LINE_MAX_CHARS);
    expect(long).toEqual([]);
  });

  it("links only to files, and headings, that exist", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of relativeLinks(readFileSync(page, "utf8"))) {
        const [target = "", anchor] = link.split("#");
        const file = target === "" ? page : path.resolve(path.dirname(page), target);
        const name = `${path.relative(root, page)}: ${link}`;
        if (!existsSync(file)) broken.push(`${name} (no such file)`);
        else if (anchor !== undefined && file.endsWith(".md") && !anchorsIn(file).has(anchor))
          broken.push(`${name} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
