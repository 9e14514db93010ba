import { describe, expect, it } from "vitest";
import { importedWithEnvSecret, withEnvSecret } from "./imported-secrets.js";

describe("imported env values are secret by default", () => {
  it("lists every env key in secret", () => {
    expect(withEnvSecret({ command: "x", env: { A: "1", B: "2" } })).toEqual({
      command: "x",
      env: { A: "1", B: "2" },
      secret: ["A", "B"],
    });
  });

  it("keeps a secret list already there, adding only the keys it misses", () => {
    expect(withEnvSecret({ command: "x", env: { A: "1", B: "2" }, secret: ["B"] })).toEqual({
      command: "x",
      env: { A: "1", B: "2" },
      secret: ["B", "A"],
    });
  });

  it("leaves entries without env, and malformed ones, for validation to name", () => {
    expect(withEnvSecret({ command: "x" })).toEqual({ command: "x" });
    expect(withEnvSecret({ command: "x", env: {} })).toEqual({ command: "x", env: {} });
    expect(withEnvSecret({ command: "x", env: ["A"] })).toEqual({ command: "x", env: ["A"] });
    expect(withEnvSecret({ command: "x", env: { A: "1" }, secret: "A" })).toEqual({
      command: "x",
      env: { A: "1" },
      secret: "A",
    });
    expect(withEnvSecret("notes")).toBe("notes");
  });

  it("keeps a server named __proto__ as a name", () => {
    const servers = JSON.parse('{"__proto__": {"command": "x", "env": {"A": "1"}}}') as Record<
      string,
      unknown
    >;
    const out = importedWithEnvSecret(servers);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toMatchObject({
      secret: ["A"],
    });
  });
});
