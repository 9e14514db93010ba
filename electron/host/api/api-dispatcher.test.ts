import { describe, expect, it } from "vitest";
import type { ApiHandlers } from "../../../shared/api/api-contract.js";
import { API_LIMITS } from "../../../shared/limits.js";
import { dispatchApi } from "./api-dispatcher.js";

/** Handlers that all answer `value`, whatever the channel. */
const answering = (value: () => unknown): ApiHandlers =>
  new Proxy({} as ApiHandlers, { get: () => () => value() });

describe("dispatchApi's response cap", () => {
  it("turns an answer over API_LIMITS.responseMaxChars into an error reply", async () => {
    const big = "x".repeat(API_LIMITS.responseMaxChars);
    const response = await dispatchApi(
      answering(() => ({ text: big })),
      "app.info",
      {},
    );
    expect(response).toEqual({
      ok: false,
      error: {
        code: "too_large",
        message: `app.info: the answer is larger than the API carries (${API_LIMITS.responseMaxChars.toLocaleString("en-US")} characters)`,
      },
    });
  });

  it("refuses, without building it, an answer JSON.stringify could not even hold", async () => {
    // 600 million characters: over V8's longest string, the old daemon's RangeError.
    const chunk = "y".repeat(1_000_000);
    const huge = Array.from({ length: 600 }, () => chunk);
    const response = await dispatchApi(
      answering(() => huge),
      "servers.list",
      {},
    );
    expect(response).toMatchObject({ ok: false, error: { code: "too_large" } });
  });

  it("passes an answer at the cap through, and bounds error replies too", async () => {
    // `{"ok":true,"value":"..."}` is 22 characters around the string's own quotes.
    const fits = "z".repeat(API_LIMITS.responseMaxChars - 24);
    const response = await dispatchApi(
      answering(() => fits),
      "app.info",
      {},
    );
    expect(response).toEqual({ ok: true, value: fits });
    const failing = await dispatchApi(
      answering(() => {
        throw new Error("e".repeat(API_LIMITS.responseMaxChars));
      }),
      "app.info",
      {},
    );
    expect(failing).toMatchObject({ ok: false, error: { code: "too_large" } });
  });
});
