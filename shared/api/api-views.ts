// What the host shows the UI. Plain data only (no Node types): this module is shared by
// the host, the preload, the WebSocket transport and the React renderer.

/** "unreachable": an engine that answered went away; runs are refused until it is back. */
export type DockerState = "ready" | "not-running" | "not-installed" | "unreachable";

export interface DockerStatusView {
  state: DockerState;
  /** The socket or host that answered (when ready). */
  endpoint: string | null;
  version: string | null;
  /** Sockets tried when none answered. */
  tried: string[];
  /** What to do, in words a non-developer can follow. */
  message: string | null;
  /** The engine in use: its name in the list (`docker`, `podman`, `colima`) or the URL chosen. */
  engine?: string | null;
  /** Docker or Podman (what answered), null while none does. */
  kind?: "docker" | "podman" | null;
  /** Whether it is on another machine (tcp:// or ssh://). */
  remote?: boolean;
  /** Every place looked at when the engine was last looked for (the Sandbox page's list). */
  engines?: EngineView[];
  /** How to install or start an engine on this platform, when none answers. */
  advice?: string[];
}

/** One place an engine was looked for, and what was found there. */
export interface EngineView {
  name: string;
  /** Docker, Docker Desktop, Podman, Colima, Rancher Desktop, OrbStack, DOCKER_HOST... */
  product: string;
  url: string;
  found: boolean;
  answered: boolean;
  kind: "docker" | "podman" | null;
  version: string | null;
  problem: string | null;
}

/**
 * The sandboxes right now, for the Sandbox page's live view: containers started and waiting
 * (so a run begins at once), being started, and runs in their own. All 0 while there is no
 * Docker or no image.
 */
export interface SandboxPoolView {
  /** Started and waiting: the next runs begin at once in these. */
  ready: number;
  /** Being started (with library preloading on, importing the libraries first). */
  starting: number;
  /** How many waiting ones the pool aims for now: the setting, or more while runs keep coming. */
  target: number;
  /** Runs going on now, each in a container of its own. */
  running: number;
  /** Runs waiting for their turn (past "Runs at the same time"). */
  queued: number;
}

/** The container runtimes the engine offers, for the Sandbox page's isolation choice. */
export interface RuntimesView {
  /** `docker info` → Runtimes; null while no engine answers. */
  available: string[] | null;
  /** Whether gVisor's runsc is among them (the "strong" isolation choice). */
  gvisor: boolean;
}

export interface ImageStatusView {
  tag: string;
  present: boolean;
  stale: string[];
  sizeBytes: number | null;
  created: string | null;
  python: string | null;
  libraries: Record<string, string>;
  building: boolean;
}

export type BuildProgress =
  | { kind: "step"; step: number; total: number; text: string }
  | { kind: "log"; text: string }
  | { kind: "finished"; ok: boolean; tag: string; error: string | null };

export type ServerStatusName = "starting" | "ready" | "failed" | "stopped";

export interface ServerView {
  name: string;
  command: string;
  args: string[];
  /**
   * Env names and values. A secret's value is never sent, only "••••" plus its last 2
   * characters, to recognise it by: it is for display only; an edit that keeps the secret
   * sends `{storedSecret: name}` (see serverEntryInput), never this text.
   */
  env: { name: string; value: string; secret: boolean }[];
  allow: string[] | null;
  private: boolean | string[];
  /** "Ask first": true for every tool, a list for those tools, false for none. */
  ask: boolean | string[];
  status: ServerStatusName;
  lastError: string | null;
  stderrTail: string[];
  restarting: boolean;
  toolCount: number;
  /**
   * Tools of this server held for review and not rejected yet (changed, new or removed since
   * they were pinned): the "changes to review" badge. servers.held lists them (and the
   * rejected ones).
   */
  held: number;
}

/**
 * Why a listed tool is not callable, as a code the UI can rely on. A new rule that leaves
 * tools out adds its code here (the UI's tool list gives each code a short label).
 */
export type LeftOutCode =
  /** The user switched the tool off (it is not on the server's allow list). */
  | "not_allowed"
  /** Its input schema cannot be checked (too deep, invalid, a dialect or pattern we cannot run). */
  | "schema_unusable"
  /** Its Python name would be longer than the runner lets the code call. */
  | "name_too_long"
  /**
   * Its name has characters a person cannot see or that reorder the text (zero-width, bidi
   * controls, tag characters): never pinned or offered, and shown escaped (`\u{E0041}`).
   */
  | "name_hidden_chars"
  /**
   * Its definition is new or differs from the one pinned when the server's tools were accepted:
   * it stays out until the user accepts it (servers.review, `codemode servers accept`).
   */
  | "held_for_review"
  /**
   * Its definition is neither the pinned one nor held for review (a server that lists one
   * name twice, say): only a pinned definition is ever offered.
   */
  | "not_pinned"
  /** Anything else, e.g. the catalog refused a change and kept the tools it had. */
  | "not_in_catalog";

export interface LeftOutReason {
  code: LeftOutCode;
  /** One line for this tool, e.g. "its input schema is nested deeper than 8 levels". */
  text: string;
}

export interface ToolView {
  server: string;
  /** The server's own name. */
  name: string;
  /** The name the code calls; null when the tool is not in the catalog. */
  pyName: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  allowed: boolean;
  private: boolean;
  /** The user is asked before each call to it. */
  ask: boolean;
  /** Its calls' arguments are kept out of the audit log (they are logged, secrets masked, else). */
  hideArgs: boolean;
  /** Why a listed tool is not callable (disallowed, schema too deep, ...); null when it is. */
  leftOut: LeftOutReason | null;
}

/**
 * One page of a list that can grow past one API reply (servers, clients, private-data mode).
 * `next` is the `after` of the following page, null on the last one; `total` counts the whole
 * list. The matching changed event carries the first page, so no message carries the whole list.
 */
export interface ListPage<T> {
  items: T[];
  total: number;
  next: number | null;
}

/** The server list's page, with how many of all servers failed (the sidebar's badge). */
export interface ServerPage extends ListPage<ServerView> {
  failed: number;
  /** Tools held for review across all servers (the sum of their `held`): the page's summary. */
  held: number;
}

export type HeldChangeKind = "changed" | "added" | "removed";

/** A tool whose definition is not the one pinned: out of the catalog until reviewed. */
export interface HeldToolView {
  server: string;
  /** The server's own name of the tool. */
  tool: string;
  kind: HeldChangeKind;
  /**
   * The whole wire definition as pinned (null when added) and as the server lists it now (null
   * when removed), canonicalised (keys sorted). A pinned definition too large to keep (over
   * PIN_LIMITS.definitionMaxChars) is `{"notKept": "...", "hash": "sha256:..."}`.
   */
  pinned: Record<string, unknown> | null;
  current: Record<string, unknown> | null;
  /**
   * The sha256 of the held definition (null when removed). servers.review sends it back, so a
   * review applies only to the definition shown, never to one the server listed after.
   */
  hash: string | null;
  /** The user rejected this very definition: it stays out until the server changes it again. */
  rejected: boolean;
  /** When Code Mode first saw this definition (ISO 8601). */
  since: string;
}

export interface ClientView {
  connectionId: string;
  name: string;
  version: string;
  transport: "socket" | "http";
  since: string;
  runs: number;
  running: number;
}

export interface TaintView {
  client: string;
  server: string;
  tool: string;
  pyName: string;
  at: string;
}

/** The settings as the UI sees them: exactly what the host keeps (one schema, in settings.ts). */
export type { Settings as SettingsView } from "../settings.js";

export interface AppInfoView {
  version: string;
  dataDir: string;
  socketPath: string;
  /** MCP over HTTP (Streamable HTTP at /mcp, SSE at /sse), when turned on in settings. */
  httpUrl: string | null;
  paused: boolean;
  /** Config or settings that could not be loaded at start (kept aside, not overwritten). */
  startupProblems: string[];
  /**
   * Why the tools of a server that changed are not in use (the previous tools that did not
   * change stay), or null.
   */
  catalogError: string | null;
  /** The command an MCP client runs to reach this install. */
  shimCommand: { command: string; args: string[]; env: Record<string, string> };
  /** The PATH wrapped servers start with, and where its entries came from. */
  serverPath: {
    path: string;
    entries: { dir: string; source: "login-shell" | "process" | "well-known" }[];
    /** The login shell asked for its PATH, or null where none is (Windows). */
    shell: string | null;
    /** Why the login shell's PATH is missing, or null when it answered. */
    shellProblem: string | null;
  };
  /** Docker as the host sees it now (as docker.status, asking Docker nothing). */
  docker: DockerStatusView;
}

export interface ClientSnippets {
  claudeDesktop: string;
  cursor: string;
  vscode: string;
  claudeCode: string;
  /** `gemini mcp add ...` for Gemini CLI, registering the shim in the user's settings. */
  gemini: string;
  /** The HTTP entries while MCP over HTTP is on, else null. */
  http: HttpClientSnippets | null;
}

/** Entries that reach MCP over HTTP with the install's token as a bearer token. */
export interface HttpClientSnippets {
  url: string;
  token: string;
  claudeCode: string;
  cursor: string;
  vscode: string;
  gemini: string;
}

export interface ClaudeDesktopPreview {
  path: string;
  exists: boolean;
  before: string;
  after: string;
  /** Unified diff of before -> after. */
  diff: string;
}

export interface FieldError {
  /** Path of the field, e.g. ["mcpServers", "notes", "command"]. */
  path: string[];
  message: string;
}

/** A tool a tried server listed, under the name the code will call it by. */
export interface TriedToolView {
  name: string;
  pyName: string;
  description: string;
}

/** What "Try it" found: the server's tools, or why it did not start (never an API error). */
export type TryServerView =
  | {
      ok: true;
      /** All the tools it listed; `tools` may hold fewer (TRY_TOOLS_SHOWN_MAX). */
      toolCount: number;
      tools: TriedToolView[];
      stderrTail: string[];
      elapsedMs: number;
    }
  | {
      ok: false;
      error: string;
      /** The likely cause in plain words (command not found, missing folder, bad token), if known. */
      hint: string | null;
      stderrTail: string[];
      elapsedMs: number;
    };

/** One `user_config` option of an MCP Bundle, as the "Add from a .mcpb file" form asks it. */
export interface BundleSettingView {
  key: string;
  type: "string" | "number" | "boolean" | "directory" | "file";
  title: string;
  description: string;
  required: boolean;
  /** Stored as a secret env value, shown masked. */
  sensitive: boolean;
  /** Several folders or files. */
  multiple: boolean;
  /** The manifest's default, before ${HOME} and the like are put in. */
  default: string[];
}

/** An MCP Bundle read from its manifest, before it is added. */
export interface BundleView {
  name: string;
  displayName: string;
  version: string;
  description: string;
  serverType: "node" | "python" | "binary" | "uv";
  settings: BundleSettingView[];
}

/** A call to an "ask first" tool waiting for the user, as the approval panel shows it. */
export interface ApprovalView {
  id: string;
  runId: string;
  client: string;
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  /** The name the code called. */
  pyName: string;
  /** The arguments, secrets masked: pretty JSON when short, else compact JSON, whole (shownArgs). */
  args: string;
  /**
   * The run's code, secrets masked and hidden characters escaped, cut to
   * APPROVAL_CODE_SHOWN_MAX_BYTES (approval-service.ts) by taking out its middle (a mark says how much).
   */
  code: string;
  /** UTF-8 bytes of the whole code, as the client sent it. */
  codeBytes: number;
  /** Whether the tool is private (its arguments may hold private data). */
  private: boolean;
  /** When it started waiting and when it is denied unless answered (ISO 8601). */
  askedAt: string;
  expiresAt: string;
  /**
   * Whether expiresAt is its run's deadline (less the margin the code needs to hear of it)
   * rather than the ask-first wait of the settings: a question never outlasts its run.
   */
  untilRunDeadline: boolean;
  /** Whether the client was asked too (MCP elicitation). */
  elicited: boolean;
}

/** A client's workspace, as the Sandbox page lists it. */
export interface WorkspaceView {
  client: string;
  name: string;
  files: number;
  bytes: number;
  /** It holds data a run read from a private tool. */
  private: boolean;
  createdAt: string;
  /** When a run last opened it (it is deleted once unused past the keep time). */
  usedAt: string;
}

/** One file of a workspace. */
export interface WorkspaceFileView {
  path: string;
  bytes: number;
  modifiedAt: string;
}
