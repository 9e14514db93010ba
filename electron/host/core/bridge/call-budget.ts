/**
 * Calls refused for a spent budget before the run is stopped (`call_budget`). A few, so a
 * loop that catches ToolError and checks for "budget" can still finish cleanly.
 */
export const REFUSALS_PAST_BUDGET = 10;

/**
 * What a call is, as far as the run's budget goes: one within it, a refusal past it, or the
 * refusal past it that stops the run.
 */
export type BudgetVerdict = "within" | "past" | "stop";

/**
 * Counts the calls of one run against its budget. Every call counts, refused ones too. Past
 * the budget the code only ever hears "refused", so a loop that catches ToolError and calls
 * again gains nothing by going on: after `REFUSALS_PAST_BUDGET` such refusals the run is stopped,
 * which bounds what one run can make the host do and write, however long its deadline.
 */
export class CallBudget {
  #calls = 0;
  #past = 0;

  constructor(
    readonly maxCalls: number,
    readonly refusalsPastBudget: number = REFUSALS_PAST_BUDGET,
  ) {
    if (!Number.isInteger(refusalsPastBudget) || refusalsPastBudget < 1) {
      throw new RangeError("refusalsPastBudget must be a positive integer");
    }
  }

  /** Calls counted so far, refused ones included. */
  get calls(): number {
    return this.#calls;
  }

  /** Calls refused because the budget was spent. */
  get pastBudget(): number {
    return this.#past;
  }

  /** Counts one call and says what it is. */
  take(): BudgetVerdict {
    this.#calls += 1;
    if (this.#calls <= this.maxCalls) return "within";
    this.#past += 1;
    return this.#past >= this.refusalsPastBudget ? "stop" : "past";
  }
}
