// Secrets stay with their server: every text of an outcome that goes back to the code has them
// replaced (secret-mask.ts). An image's data cannot be masked without breaking it, so an image
// that holds a secret (in its base64 text or its bytes) reaches the code without its data.
import type { CallOutcome, ResultItem } from "../ports/run-types.js";
import { maskSecrets } from "../secrets/secret-mask.js";

function holdsSecret(data: string, secrets: readonly string[]): boolean {
  const bytes = Buffer.from(data, "base64");
  return secrets.some(
    (secret) => secret !== "" && (data.includes(secret) || bytes.includes(secret)),
  );
}

function maskItem(item: ResultItem, secrets: readonly string[]): ResultItem {
  if (item.kind === "text") return { kind: "text", text: maskSecrets(item.text, secrets) };
  const { data, ...rest } = item;
  const masked: ResultItem = {
    ...rest,
    ...(rest.mime === undefined ? {} : { mime: maskSecrets(rest.mime, secrets) }),
    ...(rest.uri === undefined ? {} : { uri: maskSecrets(rest.uri, secrets) }),
  };
  return data === undefined || holdsSecret(data, secrets) ? masked : { ...masked, data };
}

/** The outcome with every secret value replaced; `secrets` is not empty. */
export function maskOutcome(outcome: CallOutcome, secrets: readonly string[]): CallOutcome {
  if (!outcome.ok) {
    return {
      ...outcome,
      message: maskSecrets(outcome.message, secrets),
      ...(outcome.detail === undefined ? {} : { detail: maskSecrets(outcome.detail, secrets) }),
    };
  }
  const value = maskSecrets(outcome.value, secrets);
  switch (outcome.form) {
    case "content":
      return { ...outcome, value, items: outcome.items.map((item) => maskItem(item, secrets)) };
    case "structured":
      return outcome.invalid === undefined
        ? { ...outcome, value }
        : { ...outcome, value, invalid: maskSecrets(outcome.invalid, secrets) };
    default:
      return { ...outcome, value };
  }
}
