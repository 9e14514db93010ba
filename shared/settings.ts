// The settings the user can change: one zod schema gives the type, the API's patch check, the
// host's check of a patch against the current settings and the settings file's check, so they
// can never disagree about a key or a bound. Shared with the UI, so free of Node imports.
import { z } from "zod";
import { ENGINE_LIMITS, SETTINGS_BOUNDS } from "./limits.js";

type Bounds = { readonly min: number; readonly max: number };

/**
 * The container runtimes a sandbox may run under: Docker's default (runc, the host kernel's
 * namespaces) or gVisor (runsc, a user-space kernel between the code and the host's).
 */
export const SANDBOX_RUNTIMES = ["runc", "runsc"] as const;
export const sandboxRuntimeSchema = z.enum(SANDBOX_RUNTIMES, {
  error: `must be one of ${SANDBOX_RUNTIMES.join(", ")}`,
});
export type SandboxRuntime = z.infer<typeof sandboxRuntimeSchema>;

/**
 * Whether `text` can name an engine: "" (Code Mode looks for one), a name from the engine list
 * (`docker`, `colima-work`, `context-prod`), or a URL (`unix:///path`, `tcp://host:2376`,
 * `ssh://user@host`). Whether it answers is for the host to find out.
 */
export function engineChoiceProblem(text: string): string | null {
  if (text === "" || text.includes("://")) return null;
  for (const ch of text) {
    const ok =
      (ch >= "a" && ch <= "z") ||
      (ch >= "0" && ch <= "9") ||
      ch === "-" ||
      ch === "." ||
      ch === "_";
    if (!ok)
      return "must be an engine's name (as codemode engine list shows it) or a URL such as unix:///path, tcp://host:2376 or ssh://user@host";
  }
  return null;
}

export const sandboxEngineSchema = z
  .string({ error: "must be text" })
  .max(ENGINE_LIMITS.choiceMaxChars, {
    error: `must be at most ${ENGINE_LIMITS.choiceMaxChars} characters`,
  })
  .superRefine((text, ctx) => {
    const problem = engineChoiceProblem(text);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });

/** A whole number within its bounds; the messages name the bounds, as the UI shows them. */
function bounded({ min, max }: Bounds) {
  const outside = `must be from ${min} to ${max}`;
  return z
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number", abort: true })
    .min(min, { error: outside })
    .max(max, { error: outside });
}

export const settingsSchema = z.strictObject(
  {
    deadlineSeconds: bounded(SETTINGS_BOUNDS.deadlineSeconds),
    maxCallsPerRun: bounded(SETTINGS_BOUNDS.maxCallsPerRun),
    descriptionBudgetChars: bounded(SETTINGS_BOUNDS.descriptionBudgetChars),
    warmPoolSize: bounded(SETTINGS_BOUNDS.warmPoolSize),
    warmPoolMaxSize: bounded(SETTINGS_BOUNDS.warmPoolMaxSize),
    warmPoolIdleSeconds: bounded(SETTINGS_BOUNDS.warmPoolIdleSeconds),
    serverConcurrency: bounded(SETTINGS_BOUNDS.serverConcurrency),
    maxConcurrentRuns: bounded(SETTINGS_BOUNDS.maxConcurrentRuns),
    auditRetentionDays: bounded(SETTINGS_BOUNDS.auditRetentionDays),
    auditMaxFileMiB: bounded(SETTINGS_BOUNDS.auditMaxFileMiB),
    auditMaxTotalMiB: bounded(SETTINGS_BOUNDS.auditMaxTotalMiB),
    httpEnabled: z.boolean({ error: "must be true or false" }),
    httpPort: bounded(SETTINGS_BOUNDS.httpPort),
    sandboxRuntime: sandboxRuntimeSchema,
    /** Warm containers import numpy, pandas and matplotlib while they wait (more memory each). */
    sandboxPreload: z.boolean({ error: "must be true or false" }),
    /** The container engine to use: "" finds one; else a name from the engine list or a URL. */
    sandboxEngine: sandboxEngineSchema,
    approvalTimeoutSeconds: bounded(SETTINGS_BOUNDS.approvalTimeoutSeconds),
    workspaceMaxMiB: bounded(SETTINGS_BOUNDS.workspaceMaxMiB),
    workspacesPerClient: bounded(SETTINGS_BOUNDS.workspacesPerClient),
    workspaceKeepDays: bounded(SETTINGS_BOUNDS.workspaceKeepDays),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => `unknown setting ${JSON.stringify(key)}`).join("; ")
        : undefined,
  },
);
export type Settings = z.infer<typeof settingsSchema>;

/** What settings.save sends: any of the settings, each checked as above. */
export const settingsPatchSchema = settingsSchema.partial();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const DEFAULT_SETTINGS: Settings = {
  deadlineSeconds: SETTINGS_BOUNDS.deadlineSeconds.default,
  maxCallsPerRun: SETTINGS_BOUNDS.maxCallsPerRun.default,
  descriptionBudgetChars: SETTINGS_BOUNDS.descriptionBudgetChars.default,
  warmPoolSize: SETTINGS_BOUNDS.warmPoolSize.default,
  warmPoolMaxSize: SETTINGS_BOUNDS.warmPoolMaxSize.default,
  warmPoolIdleSeconds: SETTINGS_BOUNDS.warmPoolIdleSeconds.default,
  serverConcurrency: SETTINGS_BOUNDS.serverConcurrency.default,
  maxConcurrentRuns: SETTINGS_BOUNDS.maxConcurrentRuns.default,
  auditRetentionDays: SETTINGS_BOUNDS.auditRetentionDays.default,
  auditMaxFileMiB: SETTINGS_BOUNDS.auditMaxFileMiB.default,
  auditMaxTotalMiB: SETTINGS_BOUNDS.auditMaxTotalMiB.default,
  httpEnabled: false,
  httpPort: SETTINGS_BOUNDS.httpPort.default,
  sandboxRuntime: "runc",
  sandboxPreload: true,
  sandboxEngine: "",
  approvalTimeoutSeconds: SETTINGS_BOUNDS.approvalTimeoutSeconds.default,
  workspaceMaxMiB: SETTINGS_BOUNDS.workspaceMaxMiB.default,
  workspacesPerClient: SETTINGS_BOUNDS.workspacesPerClient.default,
  workspaceKeepDays: SETTINGS_BOUNDS.workspaceKeepDays.default,
};
