import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { packageRoot } from "../../util/paths.js";

/** The guide's place under the package root. */
const GUIDE_PARTS = ["skills", "codemode", "SKILL.md"] as const;

export const SKILL_PROMPT_NAME = "codemode";
export const SKILL_RESOURCE_URI = "codemode://skills/codemode/SKILL.md";
export const SKILL_DESCRIPTION =
  "How to use Code Mode's run_python tool: call many MCP tools from one short Python program.";

/**
 * Where SKILL.md is: the packaged app ships it as an extra resource (outside the asar, which
 * holds only the built code); a checkout and the npm package have it under the package root.
 */
export function skillGuidePath(): string {
  const resources = (process as { resourcesPath?: string }).resourcesPath;
  if (resources) {
    // forge.config.ts's extraResource copies skills/codemode to resources/codemode.
    const packaged = path.join(resources, "codemode", "SKILL.md");
    if (existsSync(packaged)) return packaged;
  }
  return path.join(packageRoot(), ...GUIDE_PARTS);
}

/** The guide's text, read when a client asks (it is small, and never stale). */
export async function readSkillGuide(): Promise<string> {
  return readFile(skillGuidePath(), "utf8");
}
