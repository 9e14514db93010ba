/** One wrapped stdio server, as validated from an `mcpServers` entry. */
export interface ServerEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Names of env entries whose values are secrets: never logged, never shown in full. */
  secretEnv: string[];
  /** The server's own tool names to keep; null keeps every tool. */
  allow: string[] | null;
  private: boolean | string[];
  /** "Ask first": true for every tool, a list for those tools; absent or false for none. */
  ask?: boolean | string[] | undefined;
  /** Arguments kept out of the audit log: true for every tool, a list for those tools. */
  hideArgs?: boolean | string[] | undefined;
}

/** A validated config: server name -> entry, in file order. */
export interface ServersConfig {
  servers: Map<string, ServerEntry>;
}

/** One problem of a config, named by where it is. */
export interface ConfigIssue {
  /** Where the problem is, e.g. ["mcpServers", "notes", "url"]; [] for the file as a whole. */
  path: string[];
  message: string;
}

export type ConfigResult =
  { ok: true; config: ServersConfig } | { ok: false; errors: ConfigIssue[] };
