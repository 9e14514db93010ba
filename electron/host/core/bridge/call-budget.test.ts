import { describe, expect, it } from "vitest";
import { CallBudget, REFUSALS_PAST_BUDGET } from "./call-budget.js";

describe("CallBudget", () => {
  it("lets the budget through, refuses past it, and stops at the named number of refusals", () => {
    const budget = new CallBudget(3);
    const verdicts = Array.from({ length: 3 + REFUSALS_PAST_BUDGET }, () => budget.take());
    expect(verdicts.slice(0, 3)).toEqual(["within", "within", "within"]);
    expect(verdicts.slice(3, -1)).toEqual(
      Array.from({ length: REFUSALS_PAST_BUDGET - 1 }, () => "past"),
    );
    expect(verdicts.at(-1)).toBe("stop");
    expect(budget.calls).toBe(3 + REFUSALS_PAST_BUDGET);
    expect(budget.pastBudget).toBe(REFUSALS_PAST_BUDGET);
  });

  it("treats a budget of zero as spent from the first call", () => {
    const budget = new CallBudget(0, 2);
    expect([budget.take(), budget.take(), budget.take()]).toEqual(["past", "stop", "stop"]);
  });

  it("refuses a refusal count that is not a positive integer", () => {
    expect(() => new CallBudget(1, 0)).toThrow(RangeError);
    expect(() => new CallBudget(1, 1.5)).toThrow(RangeError);
  });
});
