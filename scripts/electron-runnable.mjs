// Whether the Electron desktop app can start on this machine, and if not, why, in words a
// user can act on. Shared by `npm start` and its test.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The Electron executable's path, or undefined when its binary was never installed. */
export function electronBinary() {
  try {
    // The electron package exports the path, and throws when its download never happened.
    const file = require("electron");
    return typeof file === "string" && existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the desktop app cannot start here, or null when it can. A Linux machine needs a
 * display (X11 or Wayland); macOS and Windows always have one.
 */
export function whyNoElectron({ binary, env, platform }) {
  if (binary === undefined) {
    return "the Electron binary is not installed (its download failed or was skipped)";
  }
  if (platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return "there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)";
  }
  return null;
}
