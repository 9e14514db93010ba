// Every tool of a server, asked for page by page over servers.tools (whose pages end at a
// count or a size, so each fits one API reply): the UI still shows the whole list.
import type { ApiError, ApiParams, ApiResponse, ApiResult } from "./api-contract.js";
import type { ToolView } from "./api-views.js";

type ToolsRequest = (
  params: ApiParams<"servers.tools">,
) => Promise<ApiResponse<ApiResult<"servers.tools">>>;

/** All pages joined, or the first error a page got. */
export async function allToolPages(
  request: ToolsRequest,
  name: string,
): Promise<ApiResponse<ToolView[]>> {
  const tools: ToolView[] = [];
  let after = 0;
  for (;;) {
    const page = await request({ name, after });
    if (!page.ok) return page;
    tools.push(...page.value.tools);
    if (page.value.next === null) return { ok: true, value: tools };
    // A cursor that does not move on would ask for the same page forever.
    if (page.value.next <= after) return { ok: false, error: stuck(after) };
    after = page.value.next;
  }
}

function stuck(after: number): ApiError {
  return { code: "internal", message: `servers.tools did not move past tool ${after}` };
}
