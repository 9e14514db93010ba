import { describe, expect, it } from "vitest";
import { RUN_LIMITS, WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { runPythonInput, runPythonInputJsonSchema, CODE_MAX_BYTES } from "./run-python-schema.js";

describe("run_python's input schema", () => {
  it("tells clients what the zod schema checks: code required, no other keys, timeout bounds", () => {
    expect(runPythonInputJsonSchema).toEqual({
      type: "object",
      properties: {
        code: {
          type: "string",
          minLength: 1,
          description: "The Python program. Top-level await is allowed.",
        },
        timeout_s: {
          type: "number",
          exclusiveMinimum: 0,
          maximum: RUN_LIMITS.maxDeadlineSeconds,
          description: `Stop the run after this many seconds (default and most: ${RUN_LIMITS.defaultDeadlineSeconds}).`,
        },
        stdin: { type: "string", description: "Text the program reads as standard input." },
        workspace: {
          type: "string",
          maxLength: WORKSPACE_LIMITS.nameMaxChars,
          description:
            "A short name: the run's files and saved values stay in /workspace under it for later runs that give the same name (save(name, value), load(name)). Without it, /workspace does not exist.",
        },
      },
      required: ["code"],
      additionalProperties: false,
    });
  });

  it("names what is wrong with bad input", () => {
    const messages = (value: unknown) => {
      const parsed = runPythonInput.safeParse(value);
      return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
    };
    expect(messages({ code: "" })).toEqual(["code is empty"]);
    expect(messages({ code: "x", timeout_s: 0 })).toEqual([
      "timeout_s must be a positive number of seconds",
    ]);
    expect(messages({ code: "x", timeout_s: RUN_LIMITS.maxDeadlineSeconds + 1 })).toEqual([
      `timeout_s can be at most ${RUN_LIMITS.maxDeadlineSeconds}`,
    ]);
    expect(messages({ code: "x".repeat(CODE_MAX_BYTES + 1) })).toEqual([
      `code is longer than ${CODE_MAX_BYTES} bytes`,
    ]);
    expect(messages({ code: "x", stdln: "typo" })[0]).toContain("stdln");
    expect(messages({ code: "print(1)", timeout_s: 5, stdin: "" })).toEqual([]);
    expect(messages({ code: "x", workspace: "sales-2026" })).toEqual([]);
    expect(messages({ code: "x", workspace: "../etc" })).toEqual([
      "workspace is a short name of ASCII letters, digits, '.', '_' and '-', starting with a letter or digit",
    ]);
  });
});
