// The host uses the MCP SDK through its public API only, so an SDK update within the caret
// range cannot change, without a type error, what the host relies on. No production module of
// the host names a member starting with "_" (the SDK's private fields, such as a transport's
// `_process` or a Server's `_oninitialize`); `_meta` is the protocol's own field, not the SDK's.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const host = path.dirname(fileURLToPath(import.meta.url));
const PRIVATE_MEMBER = /(?:\.\s*|\[\s*["'`])(_(?!meta\b)[A-Za-z]\w*)/g;

function productionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return productionFiles(file);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [file] : [];
  });
}

describe("the host's use of the MCP SDK", () => {
  it("touches no private member", () => {
    const found = productionFiles(host).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(PRIVATE_MEMBER)].map(
        (match) => `${path.relative(host, file)}: ${match[1]}`,
      ),
    );
    expect(found).toEqual([]);
  });
});
