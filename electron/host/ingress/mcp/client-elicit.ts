// The "ask first" question offered to the MCP client itself (elicitation), for a client that
// declared it can show a form. The client's answer is one choice; declining is a denial, and a
// cancel or a failure leaves the question to the app.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ELICIT_SCHEMA } from "../../core/approvals/approval-service.js";
import type { ApprovalChoice, Elicit } from "../../core/bridge/approval-gate.js";

const CHOICES: readonly string[] = ELICIT_SCHEMA.properties.answer.enum;

function isChoice(value: unknown): value is ApprovalChoice {
  return typeof value === "string" && CHOICES.includes(value);
}

/** The elicit function of a session, or undefined when its client cannot be asked. */
export function clientElicit(server: Server, relatedRequestId?: RequestId): Elicit | undefined {
  if (server.getClientCapabilities()?.elicitation?.form === undefined) return undefined;
  return async (message, signal) => {
    const result = await server.elicitInput(
      { mode: "form", message, requestedSchema: ELICIT_SCHEMA },
      // The question waits as long as the app's does; the service withdraws it.
      // Over HTTP it rides the stream of the run_python call it belongs to.
      { signal, timeout: 2 ** 31 - 1, relatedRequestId },
    );
    if (result.action === "decline") return "deny";
    if (result.action !== "accept") return null;
    const answer = result.content?.answer;
    return isChoice(answer) ? answer : null;
  };
}
