import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkHostKey, globMatch, hostKeyMessage } from "./known-hosts.js";

const key = Buffer.from("host-key-blob");
const other = Buffer.from("another-key");
const b64 = key.toString("base64");

function hashed(name: string): string {
  const salt = Buffer.from("0123456789abcdef0123");
  return `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update(name).digest("base64")}`;
}

describe("known_hosts", () => {
  it("trusts a listed key: plain, [host]:port, hashed, pattern", () => {
    expect(checkHostKey([`build.example ssh-ed25519 ${b64}`], "build.example", 22, key)).toEqual({
      ok: true,
    });
    expect(checkHostKey([`[127.0.0.1]:2222 ssh-ed25519 ${b64}`], "127.0.0.1", 2222, key)).toEqual({
      ok: true,
    });
    expect(
      checkHostKey([`${hashed("[127.0.0.1]:2222")} ssh-ed25519 ${b64}`], "127.0.0.1", 2222, key),
    ).toEqual({ ok: true });
    expect(
      checkHostKey([`*.example,!evil.example ssh-ed25519 ${b64}`], "build.example", 22, key),
    ).toEqual({ ok: true });
  });

  it("refuses an unknown host, a changed key and a revoked key", () => {
    expect(checkHostKey([`other ssh-ed25519 ${b64}`], "build.example", 22, key)).toEqual({
      ok: false,
      reason: "unknown",
    });
    expect(
      checkHostKey([`*.example,!evil.example ssh-ed25519 ${b64}`], "evil.example", 22, key).ok,
    ).toBe(false);
    expect(
      checkHostKey(
        [`build.example ssh-ed25519 ${other.toString("base64")}`],
        "build.example",
        22,
        key,
      ),
    ).toEqual({
      ok: false,
      reason: "changed",
      line: 1,
    });
    expect(
      checkHostKey(
        [`@revoked * ssh-ed25519 ${b64}\nbuild.example ssh-ed25519 ${b64}`],
        "build.example",
        22,
        key,
      ),
    ).toMatchObject({ ok: false, reason: "revoked" });
    // The same host on another port is another host.
    expect(checkHostKey([`build.example ssh-ed25519 ${b64}`], "build.example", 2222, key).ok).toBe(
      false,
    );
  });

  it("says what to do", () => {
    expect(
      hostKeyMessage({ ok: false, reason: "unknown" }, "h", 2222, "~/.ssh/known_hosts"),
    ).toContain("ssh -p 2222 h");
    expect(hostKeyMessage({ ok: false, reason: "changed", line: 3 }, "h", 22, "kh")).toContain(
      "does not match",
    );
  });

  it("glob matching is linear: a long hostile name against many stars ends at once", () => {
    expect(globMatch("a*b?c", "axxxbyc")).toBe(true);
    expect(globMatch("*".repeat(50) + "x", "a".repeat(5_000))).toBe(false);
  });
});
