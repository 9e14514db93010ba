// The sandbox's number settings as the Limits form shows them: each one's name (from the labels
// the audit log uses too), unit and hint in plain words, and the range the host takes.
import type { SettingsView } from "../../../../shared/api/api-views.js";
import {
  BRIDGE_LIMITS,
  HOST_LIMITS,
  RUN_LIMITS,
  SETTINGS_BOUNDS,
} from "../../../../shared/limits.js";
import { SETTING_WORDS } from "../../lib/setting-labels.js";

export type NumberKey = Exclude<
  keyof SettingsView,
  "httpEnabled" | "sandboxRuntime" | "sandboxPreload" | "sandboxEngine"
>;

export interface NumberSetting {
  key: NumberKey;
  /** The unit the field is in, after its name: "Time limit per run (seconds)". */
  unit?: string;
  /** What it does, in plain words; the range the host takes is added after it. */
  hint: string;
}

/** What preloading adds to a waiting sandbox's memory (bench/sandbox-preload.ts, rounded up). */
export const PRELOAD_EXTRA_MIB = 55;

export function fieldLabel(s: NumberSetting): string {
  const name = SETTING_WORDS[s.key].label;
  return s.unit ? `${name} (${s.unit})` : name;
}

export function boundsOf(key: NumberKey): { min: number; max: number } {
  return SETTINGS_BOUNDS[key];
}

export function show(key: NumberKey, n: number): string {
  // Digit grouping from 10,000 up; a port reads as a plain number.
  return key === "httpPort" || n < 10_000 ? String(n) : n.toLocaleString("en-US");
}

export function rangeText(key: NumberKey): string {
  const { min, max } = boundsOf(key);
  return `From ${show(key, min)} to ${show(key, max)}.`;
}

export const RUN_SETTINGS: NumberSetting[] = [
  {
    key: "deadlineSeconds",
    unit: "seconds",
    hint:
      "A run that takes longer is stopped. Most AI apps stop waiting after " +
      `${HOST_LIMITS.clientDefaultTimeoutSeconds} seconds, so a limit over ` +
      `${RUN_LIMITS.defaultDeadlineSeconds} may not help.`,
  },
  {
    key: "maxCallsPerRun",
    hint: "How many times one run may call your servers' tools. A run that keeps calling past it is stopped.",
  },
  {
    key: "warmPoolSize",
    hint:
      "Sandboxes started ahead of time, so the next run begins at once. Each one waiting uses " +
      `some memory (about 8 MiB, or about ${8 + PRELOAD_EXTRA_MIB} MiB with data libraries loaded ahead).`,
  },
  {
    key: "warmPoolMaxSize",
    hint:
      "When runs come one after another, up to this many are kept ready (never more than Runs " +
      "at the same time): quicker bursts, for more memory while they last.",
  },
  {
    key: "warmPoolIdleSeconds",
    unit: "seconds",
    hint: "After this long with no run, the extra ready sandboxes are removed to free their memory.",
  },
  {
    key: "maxConcurrentRuns",
    hint: "Runs past this number wait for their turn.",
  },
  {
    key: "approvalTimeoutSeconds",
    unit: "seconds",
    hint: "A call that waits for your answer is refused if you do not answer within this time.",
  },
  {
    key: "workspaceMaxMiB",
    unit: "MiB",
    hint:
      "A workspace keeps an AI app's files between its runs, when it names one. This is the " +
      "most one may hold, all its files together: a run that would leave more fails and keeps " +
      "nothing it wrote, and the workspace keeps what it had.",
  },
  {
    key: "workspacesPerClient",
    hint: "How many workspaces each AI app may have. A run naming a new one past this is refused until you delete one.",
  },
  {
    key: "workspaceKeepDays",
    unit: "days",
    hint: "A workspace no run has opened for this long is deleted, with its files.",
  },
];

export const ADVANCED_SETTINGS: NumberSetting[] = [
  {
    key: "serverConcurrency",
    hint:
      "The most calls sent to one server at once, from all runs together; more wait their " +
      `turn. It starts at ${BRIDGE_LIMITS.serverConcurrencyStart} (or this, if lower) and ` +
      "sends more only while the server keeps up. Protects the server (and any service behind " +
      "it) from a burst of calls.",
  },
  {
    key: "descriptionBudgetChars",
    unit: "characters",
    hint: "How much of what the AI app reads about the tools may describe each one in full; past it, tools are listed by name.",
  },
  {
    key: "auditRetentionDays",
    unit: "days",
    hint: "Older parts of the audit log are deleted.",
  },
  {
    key: "auditMaxFileMiB",
    unit: "MiB",
    hint: "The log starts a new file past this size.",
  },
  {
    key: "auditMaxTotalMiB",
    unit: "MiB",
    hint: "Past this size in all, the oldest log files are deleted.",
  },
  {
    key: "httpPort",
    hint: "Port of the local HTTP connection (this computer only, 127.0.0.1).",
  },
];

export const ALL_NUMBER_SETTINGS = [...RUN_SETTINGS, ...ADVANCED_SETTINGS];
