// What may name a workspace and a file in it, checked before anything touches the disk: a
// workspace name and a client's name become folder names, and a path inside a workspace comes
// from the UI, the CLI or the model's code.
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { sha256Hex } from "../../util/sha256-hex.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";

/** A workspace's name or path is refused with this error, whose message says what is wrong. */
export class WorkspaceNameError extends RunNotStarted {
  override name = "WorkspaceNameError";
}

function plainChar(ch: string, first: boolean): boolean {
  const letterOrDigit =
    (ch >= "a" && ch <= "z") || (ch >= "A" && ch <= "Z") || (ch >= "0" && ch <= "9");
  return letterOrDigit || (!first && (ch === "." || ch === "_" || ch === "-"));
}

/**
 * Names Windows gives to devices, in any case and with any extension: a folder named so is the
 * device (writes to `nul` vanish), so a workspace may not be named so on any system.
 */
const WINDOWS_DEVICES = new Set(["con", "prn", "aux", "nul"]);
const WINDOWS_NUMBERED_DEVICES = ["com", "lpt"];

function windowsDevice(name: string): boolean {
  const stem = name.split(".")[0]!.toLowerCase();
  if (WINDOWS_DEVICES.has(stem)) return true;
  const prefix = stem.slice(0, 3);
  const digit = stem.slice(3);
  return (
    WINDOWS_NUMBERED_DEVICES.includes(prefix) && digit.length === 1 && digit >= "0" && digit <= "9"
  );
}

/** Why `name` cannot name a workspace, or null when it can. */
export function workspaceNameProblem(name: string): string | null {
  if (name.length === 0) return "a workspace name cannot be empty";
  if (name.length > WORKSPACE_LIMITS.nameMaxChars) {
    return `a workspace name is at most ${WORKSPACE_LIMITS.nameMaxChars} characters`;
  }
  for (let i = 0; i < name.length; i++) {
    if (!plainChar(name.charAt(i), i === 0)) {
      return "a workspace name is ASCII letters, digits, '.', '_' and '-', starting with a letter or digit";
    }
  }
  // Windows drops a folder name's last dots: "data." would be the folder of "data".
  if (name.endsWith(".")) return "a workspace name cannot end with '.'";
  if (windowsDevice(name)) {
    return "a workspace name cannot be one Windows keeps for a device (con, prn, aux, nul, com0-9, lpt0-9)";
  }
  return null;
}

/** The name as given, checked; throws WorkspaceNameError naming what is wrong. */
export function checkWorkspaceName(name: string): string {
  const problem = workspaceNameProblem(name);
  if (problem !== null)
    throw new WorkspaceNameError(`${problem} (got ${JSON.stringify(name.slice(0, 80))})`);
  return name;
}

/**
 * The folder a workspace is kept in: its name in lower case, so two names that differ only in
 * case are one workspace on every file system (macOS and Windows ignore case).
 */
export function workspaceFolder(name: string): string {
  return checkWorkspaceName(name).toLowerCase();
}

/** The folder of a client's workspaces: a hash of its name, which may hold any character. */
export function clientFolder(client: string): string {
  return sha256Hex(`codemode-client\0${client}`).slice(0, 32);
}

/**
 * A relative path inside a workspace as its parts, checked: `/` separated, no empty, `.` or
 * `..` part, no backslash or NUL, each part at most 255 bytes, the whole at most
 * WORKSPACE_LIMITS.pathMaxChars. A leading `/workspace/` or `/` is taken off.
 */
export function workspacePathParts(relative: string): string[] {
  let text = relative;
  if (text.startsWith("/workspace/")) text = text.slice("/workspace/".length);
  else if (text.startsWith("/")) text = text.slice(1);
  if (text.endsWith("/")) text = text.slice(0, -1);
  if (text.length === 0) throw new WorkspaceNameError("a path inside a workspace cannot be empty");
  if (text.length > WORKSPACE_LIMITS.pathMaxChars) {
    throw new WorkspaceNameError(
      `a path inside a workspace is at most ${WORKSPACE_LIMITS.pathMaxChars} characters`,
    );
  }
  const parts = text.split("/");
  for (const part of parts) {
    if (part === "" || part === "." || part === "..") {
      throw new WorkspaceNameError(
        `${JSON.stringify(relative.slice(0, 200))} is not a plain path inside the workspace`,
      );
    }
    if (part.includes("\\") || part.includes("\0") || Buffer.byteLength(part) > 255) {
      throw new WorkspaceNameError(
        `${JSON.stringify(relative.slice(0, 200))} has a part no file can be named`,
      );
    }
  }
  return parts;
}
