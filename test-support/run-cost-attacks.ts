// The hostile runs that try to exhaust a run's cost bounds, shared by e2e/run-cost.e2e.test.ts
// and bench/run-cost-flood.ts.

/**
 * The attack of the issue, through the public API alone: calls gathered in a loop, each
 * ToolError caught, so the run goes on after its budget is spent. Every call carries ~2 KiB
 * of arguments, which the old code logged in full for every refusal.
 */
export const BUDGET_FLOOD = `
import asyncio
big = "x" * 2000
while True:
    await asyncio.gather(*[toy__echo({"text": big}) for _ in range(50)], return_exceptions=True)
`;

/**
 * Output chunks written straight to the protocol pipe (the code shares the runner's process,
 * so it can): empty ones never reach the output cap, yet each costs the host a parse.
 */
export const CHUNK_FLOOD = `
import os
line = b'{"type":"output","stream":"stdout","data":""}\\n' * 1000
while True:
    os.write(4, line)
`;

/** Calls within a budget raised to its ceiling, each logged with 2 KiB of arguments. */
export const LOG_FLOOD = `
import asyncio
big = "x" * 8000
while True:
    await asyncio.gather(*[toy__echo({"text": big}) for _ in range(200)], return_exceptions=True)
`;
