import { z } from "zod";
import { RUN_LIMITS } from "../../../../shared/limits.js";

export const RUN_PYTHON_TOOL = "run_python";

/**
 * What a client may send: checked strictly, so a typo'd key is an error, not ignored. The
 * same schema gives the engine its input type and clients the tool's JSON Schema.
 */
export const runPythonInput = z.strictObject({
  code: z
    .string()
    .min(1, "code is empty")
    .refine((code) => Buffer.byteLength(code) <= RUN_LIMITS.codeMaxBytes, {
      message: `code is longer than ${RUN_LIMITS.codeMaxBytes} bytes`,
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
    .refine((text) => Buffer.byteLength(text) <= RUN_LIMITS.stdinMaxBytes, {
      message: `stdin is longer than ${RUN_LIMITS.stdinMaxBytes} bytes`,
    })
    .describe("Text the program reads as standard input.")
    .optional(),
});
export type RunPythonInput = z.output<typeof runPythonInput>;

// Without `$schema`: MCP's tool schema is a plain object schema, and the dialect is MCP's own.
const { $schema: _dialect, ...inputJsonSchema } = z.toJSONSchema(runPythonInput);
export const runPythonInputJsonSchema = { ...inputJsonSchema, type: "object" as const };
