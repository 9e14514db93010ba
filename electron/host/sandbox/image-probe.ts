import type { Sandbox } from "./sandbox.js";

export interface ImageProbe {
  python: string;
  libraries: Record<string, string>;
}

// Runs inside the sandbox itself, so what it reports is what a run really gets.
const PROBE_CODE = `
import sys, json, importlib
libs = {}
for name in ("numpy", "pandas", "matplotlib", "PIL", "yaml", "jinja2"):
    try:
        libs[name] = importlib.import_module(name).__version__
    except Exception as error:
        libs[name] = "missing: " + type(error).__name__
print(json.dumps({"python": sys.version.split()[0], "libraries": libs}))
`;

/**
 * The image probe (imports the bundled libraries and prints their versions) is our own
 * code, not the user's, so it gets a fixed deadline rather than the user's setting.
 */
export const IMAGE_PROBE_DEADLINE_SECONDS = 60;

export async function probeImage(sandbox: Sandbox): Promise<ImageProbe> {
  const result = await sandbox.run({
    code: PROBE_CODE,
    deadlineSeconds: IMAGE_PROBE_DEADLINE_SECONDS,
  });
  if (result.error !== null) throw new Error(`the sandbox image did not start: ${result.error}`);
  return JSON.parse(result.stdout) as ImageProbe;
}
