// A wrapped server as a careless wrapper makes one: a first process that ignores its closed
// stdin and SIGTERM (npx-like, it only starts the real server and stays), the toy MCP server
// as its child on the same stdio, and a `sleep` that holds the pipes too. Each writes its pid
// to a file, so a test can tell that the whole tree is gone after a stop.
import { readFileSync } from "node:fs";
import type { ServerEntry } from "../electron/host/core/ports/server-config-types.js";

const WRAPPER = `
const { spawn } = require("node:child_process");
const { appendFileSync } = require("node:fs");
const [toy, pidFile] = process.argv.slice(1);
process.on("SIGTERM", () => process.stderr.write("stubborn: SIGTERM ignored\\n"));
setInterval(() => undefined, 1 << 30);
const server = spawn(process.execPath, [toy], { stdio: "inherit" });
const sleeper = spawn("sleep", ["777"], { stdio: ["ignore", "inherit", "inherit"] });
appendFileSync(pidFile, [process.pid, server.pid, sleeper.pid].join("\\n") + "\\n");
`;

/** The servers.json entry (command and args) of the stubborn server running `toyJs`. */
export function stubbornServer(
  toyJs: string,
  pidFile: string,
): { command: string; args: string[] } {
  return { command: process.execPath, args: ["-e", WRAPPER, toyJs, pidFile] };
}

export function stubbornEntry(toyJs: string, pidFile: string): ServerEntry {
  return {
    ...stubbornServer(toyJs, pidFile),
    env: {},
    secretEnv: [],
    allow: null,
    private: false,
  };
}

/** The pids the stubborn servers started so far wrote (wrapper, toy server, sleep; per start). */
export function stubbornPids(pidFile: string): number[] {
  try {
    return readFileSync(pidFile, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map(Number);
  } catch {
    return [];
  }
}
