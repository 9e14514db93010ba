import {
  API_PARAMS,
  type ApiChannel,
  type ApiHandlers,
  type ApiParams,
  type ApiResponse,
  type ApiResult,
} from "../../../shared/api/api-contract.js";
import { API_LIMITS } from "../../../shared/limits.js";
import { ApiFailure } from "../../../shared/api/api-failure.js";
import { jsonLengthUpTo } from "./json-size.js";

function isChannel(value: string): value is ApiChannel {
  return Object.prototype.hasOwnProperty.call(API_PARAMS, value);
}

/**
 * The single entry of every request, whatever the transport: the channel must exist, the
 * params must match its schema, and whatever happens comes back as data, never a throw. A
 * reply longer than API_LIMITS.responseMaxChars as JSON is an error reply instead: measured
 * here, before any transport serialises it (the WebSocket's JSON.stringify, Electron's
 * structured clone), so no reply can run the host out of memory or past V8's longest string.
 */
export function dispatchApi<C extends ApiChannel>(
  handlers: ApiHandlers,
  channel: C,
  params: ApiParams<C>,
  onInternalError?: (channel: string, error: unknown) => void,
): Promise<ApiResponse<ApiResult<C>>>;
export function dispatchApi(
  handlers: ApiHandlers,
  channel: string,
  params: unknown,
  onInternalError?: (channel: string, error: unknown) => void,
): Promise<ApiResponse<unknown>>;
export async function dispatchApi(
  handlers: ApiHandlers,
  channel: string,
  params: unknown,
  onInternalError: (channel: string, error: unknown) => void = () => undefined,
): Promise<ApiResponse<unknown>> {
  const response = await dispatchUnbounded(handlers, channel, params, onInternalError);
  // Error replies too: one naming every bad item of a huge request could be huge itself.
  if (jsonLengthUpTo(response, API_LIMITS.responseMaxChars) > API_LIMITS.responseMaxChars) {
    return {
      ok: false,
      error: {
        code: "too_large",
        message: `${channel.slice(0, API_LIMITS.wsNameMaxChars)}: the answer is larger than the API carries (${API_LIMITS.responseMaxChars.toLocaleString("en-US")} characters)`,
      },
    };
  }
  return response;
}

async function dispatchUnbounded(
  handlers: ApiHandlers,
  channel: string,
  params: unknown,
  onInternalError: (channel: string, error: unknown) => void,
): Promise<ApiResponse<unknown>> {
  if (!isChannel(channel)) {
    return {
      ok: false,
      error: { code: "not_found", message: `no API channel named ${JSON.stringify(channel)}` },
    };
  }
  const parsed = API_PARAMS[channel].safeParse(params ?? {});
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => ({
      path: issue.path.map(String),
      message: issue.message,
    }));
    return {
      ok: false,
      error: {
        code: "invalid",
        message: `invalid request to ${channel}: ${fields.map((f) => (f.path.length ? `${f.path.join(".")}: ${f.message}` : f.message)).join("; ")}`,
        fields,
      },
    };
  }
  return answer(handlers, channel, parsed.data, onInternalError);
}

async function answer(
  handlers: ApiHandlers,
  channel: ApiChannel,
  params: unknown,
  onInternalError: (channel: string, error: unknown) => void,
): Promise<ApiResponse<unknown>> {
  try {
    const handler = handlers[channel] as (p: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(params) };
  } catch (error) {
    if (error instanceof ApiFailure) return { ok: false, error: error.toApiError() };
    onInternalError(channel, error);
    return {
      ok: false,
      error: {
        code: "internal",
        message: `${channel} failed: ${error instanceof Error ? error.message : String(error)}`,
      },
    };
  }
}
