// What the task set of bench/context-economy.ts and bench/workbench.ts is made of: the shapes of
// a task and of its classic calls, the companies and services of the generated files, and the
// small readers of tool text the classic side needs (the Python side reads values).

/** A classic tool call: the server's own tool name and its arguments. */
export interface ClassicCall {
  server: "everything" | "filesystem" | "memory";
  tool: string;
  args: Record<string, unknown>;
}

/**
 * How a task makes its classic calls: `call` one that works (its result, as text: the text
 * blocks of its content, joined); `mistake` one a model gets wrong (an unknown tool, a bad
 * argument): its error comes back, and the model then makes the right call.
 */
export interface ClassicIO {
  call: (call: ClassicCall) => Promise<string>;
  mistake: (call: ClassicCall) => Promise<void>;
}

/** The mistakes models make in a direct call, as the model-style tasks make them. */
export type MistakeKind =
  | "misspelt tool"
  | "renamed argument"
  | "string for integer"
  | "missing argument"
  | "value outside an enum";

export interface Task {
  name: string;
  /** Makes the classic calls one at a time and returns the answer the model would give. */
  classic: (io: ClassicIO) => Promise<string>;
  /** The tools the model looks up first, as the code calls them (it prints their stubs). */
  lookUp: string[];
  /** The code of the run that does the work, against the typed API; it prints the answer. */
  code: string;
  /** A model-style task: its first run, as a model writes it, with one mistake. */
  mistake?: { kind: MistakeKind; code: string };
  /** The same two runs in the dict form (`server__tool({...})`), as models wrote it before. */
  dict?: { mistake: string; code: string };
}

export interface TaskFiles {
  root: string;
  invoices: string;
  logs: string;
  people: string;
}

export const CUSTOMERS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli"];
export const SERVICES = ["api", "auth", "billing", "search", "mail"];
export const COMPANIES = ["Acme", "Globex", "Initech"];

/** `[FILE] name` lines of list_directory, as a model reads them. */
export function listedFiles(listing: string): string[] {
  return listing
    .split("\n")
    .filter((line) => line.startsWith("[FILE] "))
    .map((line) => line.slice("[FILE] ".length).trim())
    .sort();
}

export function csvRows(text: string): string[][] {
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split(","));
}

/** The `[FILE]` names of a listing sorted by size, largest first, in its order. */
export function sizeOrder(listing: string): string[] {
  return listing
    .split("\n")
    .filter((line) => line.startsWith("[FILE] "))
    .map((line) => line.slice("[FILE] ".length).split(/\s+/)[0] ?? "");
}

/** The first three `[FILE]` names of a listing sorted by size, largest first. */
export function sizeTop(listing: string): string {
  return sizeOrder(listing).slice(0, 3).join(",");
}

/** The last whole number in a text ("The sum of 3 and 5 is 8." -> 8). */
export function lastNumber(text: string): number {
  const words = text.split(/[^0-9-]+/).filter((w) => w !== "" && w !== "-");
  return Number(words.at(-1) ?? NaN);
}
