import { describe, expect, it } from "vitest";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import { editFromEntry, editsFromValue } from "./config-edits.js";

describe("edits from what the UI sends", () => {
  it("keeps {storedSecret} values as references and checks the rest as the file would", () => {
    const edits = editsFromValue({
      mcpServers: {
        notes: {
          command: "notes-mcp",
          env: { KEY: { storedSecret: "OLD_KEY" }, MODE: "fast" },
          secret: ["KEY"],
        },
        plain: { command: "x" },
      },
    });
    expect([...edits.keys()]).toEqual(["notes", "plain"]);
    expect(edits.get("notes")).toEqual({
      command: "notes-mcp",
      args: [],
      env: { KEY: { storedSecret: "OLD_KEY" }, MODE: "fast" },
      secretEnv: ["KEY"],
      allow: null,
      private: false,
    });
  });

  it("takes a string that looks like a mask as a new value: no text is special", () => {
    const edit = editFromEntry("notes", { command: "x", env: { KEY: "••••ab" }, secret: ["KEY"] });
    expect(edit.env).toEqual({ KEY: "••••ab" });
  });

  it("refuses a reference with other keys, naming the env entry", () => {
    let error: unknown;
    try {
      editFromEntry("notes", { command: "x", env: { KEY: { storedSecret: "K", value: "v" } } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiFailure);
    expect((error as ApiFailure).fields?.[0]?.path).toEqual(["mcpServers", "notes", "env", "KEY"]);
  });

  it("names the server and field of an invalid entry", () => {
    expect(() => editFromEntry("a b", { command: "" })).toThrow(
      /server name "a b" may only hold ASCII letters.*"command" must be a non-empty string/,
    );
  });

  it("treats a server named __proto__ as a name, not as the object's prototype", () => {
    const edits = editsFromValue(
      JSON.parse(
        '{"mcpServers": {"__proto__": {"command": "x", "env": {"K": {"storedSecret": "K"}}, "secret": ["K"]}}}',
      ),
    );
    expect(edits.get("__proto__")?.env).toEqual({ K: { storedSecret: "K" } });
  });
});
