import { z } from "zod";
import { RUN_LIMITS, WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { KiB, MiB } from "../../util/units.js";

/** The most `stdin` text a run can be given. */
export const STDIN_MAX_BYTES = 1 * MiB;

/** The most code a run can be given. */
export const CODE_MAX_BYTES = 256 * KiB;

export const RUN_PYTHON_TOOL = "run_python";

/**
 * What a client may send: checked strictly, so a typo'd key is an error, not ignored. The
 * same schema gives the engine its input type and clients the tool's JSON Schema.
 */
export const runPythonInput = z.strictObject({
  code: z
    .string()
    .min(1, "code is empty")
    .refine((code) => Buffer.byteLength(code) <= CODE_MAX_BYTES, {
      message: `code is longer than ${CODE_MAX_BYTES} bytes`,
    })
    .describe("The Python program. Top-level await is allowed."),
  timeout_s: z
    .number()
    .positive("timeout_s must be a positive number of seconds")
    .max(RUN_LIMITS.maxDeadlineSeconds, `timeout_s can be at most ${RUN_LIMITS.maxDeadlineSeconds}`)
    .describe(
      `Stop the run after this many seconds (default and most: ${RUN_LIMITS.defaultDeadlineSeconds}).`,
    )
    .optional(),
  stdin: z
    .string()
    .refine((text) => Buffer.byteLength(text) <= STDIN_MAX_BYTES, {
      message: `stdin is longer than ${STDIN_MAX_BYTES} bytes`,
    })
    .describe("Text the program reads as standard input.")
    .optional(),
  workspace: z
    .string()
    .max(
      WORKSPACE_LIMITS.nameMaxChars,
      `workspace is at most ${WORKSPACE_LIMITS.nameMaxChars} characters`,
    )
    .refine(isWorkspaceName, {
      message:
        "workspace is a short name of ASCII letters, digits, '.', '_' and '-', starting with a letter or digit",
    })
    .describe(
      "A short name: the run's files and saved values stay in /workspace under it for later runs that give the same name (save(name, value), load(name)). Without it, /workspace does not exist.",
    )
    .optional(),
});
export type RunPythonInput = z.output<typeof runPythonInput>;

/** A workspace name: checked by a loop (the text is the client's), as workspace-name.ts does. */
function isWorkspaceName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charAt(i);
    const letterOrDigit =
      (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9");
    if (!letterOrDigit && (i === 0 || (c !== "." && c !== "_" && c !== "-"))) return false;
  }
  return true;
}

// Without `$schema`: MCP's tool schema is a plain object schema, and the dialect is MCP's own.
const { $schema: _dialect, ...inputJsonSchema } = z.toJSONSchema(runPythonInput);
export const runPythonInputJsonSchema = { ...inputJsonSchema, type: "object" as const };
