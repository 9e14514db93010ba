import { describe, expect, it } from "vitest";
import { contextHash, imageTagFor, type ContextFile } from "./image.js";

const files = (runner: string): ContextFile[] => [
  { name: "Dockerfile", content: Buffer.from("FROM debian:trixie-slim\n") },
  { name: "runner.py", content: Buffer.from(runner) },
];

describe("sandbox image tag", () => {
  it("is codemode-sandbox:<first 12 hex of a hash of the context>, and changes with it", () => {
    const tag = imageTagFor(files("print(1)"));
    expect(tag).toBe(`codemode-sandbox:${contextHash(files("print(1)")).slice(0, 12)}`);
    expect(tag).toMatch(/^codemode-sandbox:[0-9a-f]{12}$/);
    expect(imageTagFor(files("print(2)"))).not.toBe(tag);
  });
});
