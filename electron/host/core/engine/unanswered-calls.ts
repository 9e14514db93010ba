// A run that ended while calls waited for the user's answer ("ask first") says so in its error:
// the model would otherwise read only why the run stopped, with no word of the question.
import type { RunResult } from "../../../../shared/run-result.js";

/** Names listed in the note of calls left unanswered; the rest are counted. */
const UNANSWERED_NAMES_SHOWN = 3;

/**
 * The result of a run that failed (raised, was stopped, or ended) while calls waited for the
 * user's answer, its error saying which calls waited and that they were not answered.
 */
export function withUnanswered(result: RunResult, waiting: readonly string[]): RunResult {
  if (waiting.length === 0 || result.error === null) return result;
  const names = [...new Set(waiting)];
  const shown = names.slice(0, UNANSWERED_NAMES_SHOWN).join(", ");
  const more = names.length - UNANSWERED_NAMES_SHOWN;
  const which = more > 0 ? `${shown} and ${more} more` : shown;
  const calls = waiting.length === 1 ? "a call" : `${waiting.length} calls`;
  const note =
    `${calls} to ${which} waited for the user's answer and ${waiting.length === 1 ? "was" : "were"} ` +
    `not answered when the run ended, so ${waiting.length === 1 ? "it was" : "they were"} not sent`;
  return { ...result, error: `${result.error}\n${note}` };
}
