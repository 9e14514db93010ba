import { describe, expect, it } from "vitest";
import { SECRET_LIMITS } from "../../../shared/limits.js";
import type { ServerEntry } from "../servers/server-config-types.js";
import { SECRET_MASK, maskSecrets, secretValues } from "./secret-mask.js";

function entry(env: Record<string, string>, secretEnv: string[]): ServerEntry {
  return { command: "x", args: [], env, secretEnv, allow: null, private: false };
}

describe("secret masking", () => {
  it("takes the values of env keys marked secret, long enough to mask, longest first", () => {
    const config = {
      servers: new Map([
        [
          "a",
          entry({ KEY: "sk-aaaaaaaa", PLAIN: "not-a-secret-value", SHORT: "1234567" }, [
            "KEY",
            "SHORT",
          ]),
        ],
        ["b", entry({ TOKEN: "tok-bbbbbbbbbbbb" }, ["TOKEN"])],
      ]),
    };
    expect(secretValues(config)).toEqual(["tok-bbbbbbbbbbbb", "sk-aaaaaaaa"]);
    expect("1234567").toHaveLength(SECRET_LIMITS.maskMinChars - 1);
  });

  it("also masks a secret as JSON escapes it", () => {
    const config = { servers: new Map([["a", entry({ K: 'pa"ss\\word' }, ["K"])]]) };
    const secrets = secretValues(config);
    const asJson = JSON.stringify({ echoed: 'pa"ss\\word' });
    expect(maskSecrets(asJson, secrets)).toBe(`{"echoed":"${SECRET_MASK}"}`);
  });

  it("replaces every occurrence, the longer secret first", () => {
    const secrets = ["sk-aaaaaaaa-long", "sk-aaaaaaaa"];
    expect(maskSecrets("x sk-aaaaaaaa-long y sk-aaaaaaaa z", secrets)).toBe(
      "x [secret] y [secret] z",
    );
    expect(maskSecrets("nothing here", secrets)).toBe("nothing here");
  });
});
