// What the namespaced form reads of a call's outcome, beside the string the `params: dict`
// form gets (unchanged): a reason and a one-line detail for each refusal, and the form of each
// result (structured, checked against the output schema; JSON text; content items).
import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import { DEFAULT_TOOLS, setup, text, never } from "../../../../test-support/bridge-fixture.js";
import type { CallOutcome } from "../ports/run-types.js";
import type { ApprovalGate } from "./approval-gate.js";
import { Bridge } from "./bridge.js";
import { RESULT_IMAGE_DATA_MAX_BYTES } from "./result-form.js";
import { makeCatalog, FakeCaller } from "../../../../test-support/bridge-fixture.js";
import { TaintRegistry } from "./taint.js";

const SHOP = {
  pyName: "shop__add_item",
  server: "shop",
  tool: "add_item",
  schema: {
    type: "object",
    properties: { qty: { type: "integer" }, size: { enum: ["S", "M"] } },
    required: ["qty"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { total: { type: "number" } },
    required: ["total"],
  },
};

function failure(outcome: CallOutcome): Extract<CallOutcome, { ok: false }> {
  if (outcome.ok) throw new Error(`expected a refusal, got ${outcome.value}`);
  return outcome;
}

describe("the reasons and details of refusals", () => {
  it("names the argument, what was expected and what came, in one line", async () => {
    const s = setup({ tools: [...DEFAULT_TOOLS, SHOP] });
    const run = s.run();
    const typed = failure(await run.call("shop__add_item", { qty: "2" }));
    expect(typed).toMatchObject({ reason: "invalid", detail: 'qty: expected integer, got "2"' });
    // The dict form's message is what it always was.
    expect(typed.message).toBe(
      'Arguments of "shop__add_item" do not match its schema: /qty must be integer ' +
        '(TOOLS["shop__add_item"] shows its parameters).',
    );
    expect(failure(await run.call("shop__add_item", {})).detail).toBe(
      'missing required argument "qty"',
    );
    expect(failure(await run.call("shop__add_item", { qty: 1, colour: "red" })).detail).toBe(
      'unexpected argument "colour"',
    );
    expect(failure(await run.call("shop__add_item", { qty: 1, size: "XL" })).detail).toBe(
      'size: expected one of "S", "M", got "XL"',
    );
    expect(failure(await run.call("shop__add_item", [])).reason).toBe("invalid");
    expect(s.caller.calls).toHaveLength(0);
  });

  it("gives every refusal its reason", async () => {
    const s = setup({
      callTimeoutMs: 30,
      handler: (call) => (call.tool === "echo" ? never() : text("x")),
    });
    const run = s.run({ maxCalls: 6 });
    expect(failure(await run.call("nope__tool", {})).reason).toBe("refused");
    const big = { text: "x".repeat(BRIDGE_LIMITS.argsMaxBytes) };
    expect(failure(await run.call("tracker__find_issue", big))).toMatchObject({
      reason: "refused",
      detail: expect.stringMatching(/^its arguments are \d+ bytes as JSON/) as unknown,
    });
    expect(failure(await run.call("tracker__echo", {}))).toMatchObject({
      reason: "timeout",
      detail: "timed out after 0.03 s",
    });
    // Tainted by a private call, the next public one is refused for it.
    await run.call("notes__read", {});
    expect(failure(await run.call("web__fetch", {}))).toMatchObject({
      reason: "private",
      detail: expect.stringMatching(/^refused: this client called the private tool/) as unknown,
    });
    await run.call("notes__read", {});
    expect(failure(await run.call("notes__read", {}))).toMatchObject({
      reason: "budget",
      detail:
        "refused: this run has used its budget of 6 tool calls (every call counts, refused ones too)",
    });
  });

  it("says the user denied a call, and that the server failed", async () => {
    const approvals: ApprovalGate = {
      asksFirst: (server) => server === "web",
      ask: () => Promise.resolve({ answer: "deny", by: "app" }),
    };
    const s = setup({
      approvals,
      handler: () => ({ content: [{ type: "text", text: "no such page" }], isError: true }),
    });
    const run = s.run();
    expect(failure(await run.call("web__fetch", {}))).toMatchObject({
      reason: "denied",
      detail: "the user denied this call",
    });
    expect(failure(await run.call("tracker__echo", {}))).toMatchObject({
      reason: "server_error",
      detail: "the server answered with an error: no such page",
    });
  });
});

describe("the form of a result", () => {
  it("structured content, checked against the tool's output schema; the string as before", async () => {
    let total: unknown = 7.5;
    const s = setup({
      tools: [SHOP],
      handler: () => ({
        content: [{ type: "text", text: "ignored" }],
        structuredContent: { total },
      }),
    });
    const run = s.run();
    expect(await run.call("shop__add_item", { qty: 1 })).toEqual({
      ok: true,
      value: '{"total":7.5}',
      form: "structured",
    });
    total = "lots";
    expect(await run.call("shop__add_item", { qty: 1 })).toEqual({
      ok: true,
      value: '{"total":"lots"}',
      form: "structured",
      invalid: 'total: expected number, got "lots"',
    });
  });

  it("a single text item that may be JSON, plain text, and content items without base64", async () => {
    const png = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
    // Base64 of RESULT_IMAGE_DATA_MAX_BYTES + 3 bytes: one past the limit (and whole groups).
    const hugeBytes = RESULT_IMAGE_DATA_MAX_BYTES + 3 - ((RESULT_IMAGE_DATA_MAX_BYTES + 3) % 3);
    const huge = "A".repeat((hugeBytes / 3) * 4);
    const results: Record<string, unknown> = {
      json: { content: [{ type: "text", text: ' [{"a": 1}]' }] },
      text: { content: [{ type: "text", text: "plain" }] },
      texts: {
        content: [
          { type: "text", text: "{" },
          { type: "text", text: "}" },
        ],
      },
      mixed: {
        content: [
          { type: "text", text: "here" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "image", data: huge, mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///a.txt", name: "a" },
          { type: "resource", resource: { uri: "file:///b", blob: "AAAA", mimeType: "x/y" } },
        ],
      },
    };
    const s = setup({ handler: (call) => results[call.args.kind as string] as never });
    const run = s.run();
    expect(await run.call("web__fetch", { kind: "json" })).toMatchObject({ form: "json" });
    expect(await run.call("web__fetch", { kind: "text" })).toEqual({ ok: true, value: "plain" });
    expect(await run.call("web__fetch", { kind: "texts" })).toEqual({ ok: true, value: "{\n}" });
    const mixed = await run.call("web__fetch", { kind: "mixed" });
    expect(mixed).toMatchObject({
      ok: true,
      form: "content",
      items: [
        { kind: "text", text: "here" },
        { kind: "image", mime: "image/png", bytes: 8, data: png },
        { kind: "image", mime: "image/png" },
        { kind: "audio", mime: "audio/wav", bytes: 3 },
        { kind: "resource_link", uri: "file:///a.txt", bytes: 0 },
        { kind: "resource", uri: "file:///b", mime: "x/y", bytes: 3 },
      ],
    });
    // Over RESULT_IMAGE_DATA_MAX_BYTES an image comes without its data; audio never has any.
    const items = mixed.ok && mixed.form === "content" ? mixed.items : [];
    expect(items[2]).not.toHaveProperty("data");
    expect(items[3]).not.toHaveProperty("data");
    // The string the dict form gets is unchanged: no base64 in it.
    expect(mixed.ok && mixed.value).toBe(
      "here\n[image image/png, 8 bytes]\n[image image/png, " +
        `${hugeBytes} bytes]\n[audio audio/wav, 3 bytes]\n[resource link file:///a.txt]\n` +
        "[resource file:///b, x/y, 3 bytes]",
    );
  });

  it("measures an image's data as sent, not as decoded: padding cannot carry it past the cap", async () => {
    const png = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
    // Characters base64 ignores decode to nothing, yet would all go to the sandbox with the data.
    const padded = png + "\n".repeat(RESULT_IMAGE_DATA_MAX_BYTES * 2);
    // Exactly at the cap (its base64 ends in padding): the data still comes.
    const full = Buffer.alloc(RESULT_IMAGE_DATA_MAX_BYTES).toString("base64");
    const s = setup({
      handler: (call) => ({
        content: [
          { type: "image", data: call.args.full === true ? full : padded, mimeType: "image/png" },
        ],
      }),
    });
    const outcome = await s.run().call("web__fetch", {});
    expect(outcome).toMatchObject({ form: "content", items: [{ kind: "image", bytes: 8 }] });
    const items = outcome.ok && outcome.form === "content" ? outcome.items : [];
    expect(items[0]).not.toHaveProperty("data");
    expect(await s.run().call("web__fetch", { full: true })).toMatchObject({
      items: [{ kind: "image", bytes: RESULT_IMAGE_DATA_MAX_BYTES, data: full }],
    });
  });

  it("keeps secrets out of every text of a typed outcome, and an image holding one loses its data", async () => {
    const secret = "sk-secret-123";
    const withSecret = Buffer.from(`\x89PNG....${secret}`).toString("base64");
    const caller = new FakeCaller((call) =>
      call.tool === "fetch"
        ? {
            content: [
              { type: "text", text: `key ${secret}` },
              { type: "image", data: withSecret, mimeType: "image/png" },
            ],
          }
        : { content: [{ type: "text", text: `no ${secret}` }], isError: true },
    );
    const bridge = new Bridge({
      catalog: () => makeCatalog(DEFAULT_TOOLS),
      caller,
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
      secrets: () => [secret],
    });
    const run = bridge.startRun({ runId: "r", client: "c", signal: new AbortController().signal });
    const shown = JSON.stringify(await run.call("web__fetch", {}));
    expect(shown).not.toContain(secret);
    expect(shown).toContain('"kind":"image"');
    expect(shown).not.toContain(withSecret);
    const failed = JSON.stringify(await run.call("tracker__echo", {}));
    expect(failed).not.toContain(secret);
    expect(failed).toContain('"detail":"the server answered with an error: no [secret]"');
  });
});
