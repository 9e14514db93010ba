// The published servers the context-economy and workbench benches run their tasks against:
// server-everything, server-filesystem over the generated files, server-memory with a file of
// the task's own.
import path from "node:path";
import { repoRoot } from "../test-support/processes.js";
import { EVERYTHING_BIN } from "../test-support/serve-client.js";

export const SERVERS = ["everything", "filesystem", "memory"] as const;
export type ServerName = (typeof SERVERS)[number];

const bin = (name: string) =>
  path.join(repoRoot, "node_modules", "@modelcontextprotocol", name, "dist", "index.js");

export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export function commandOf(
  server: ServerName,
  filesRoot: string,
  memoryFile: string,
): ServerCommand {
  if (server === "everything")
    return { command: process.execPath, args: [EVERYTHING_BIN, "stdio"], env: {} };
  if (server === "filesystem")
    return { command: process.execPath, args: [bin("server-filesystem"), filesRoot], env: {} };
  return {
    command: process.execPath,
    args: [bin("server-memory")],
    env: { MEMORY_FILE_PATH: memoryFile },
  };
}
