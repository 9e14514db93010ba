import type { ContainerNeed } from "./pool-waiters.js";

/**
 * The libraries warm containers preload, by the names code imports them under (runner.py's
 * PRELOAD_MODULES: numpy, pandas, matplotlib and matplotlib.pyplot).
 */
export const PRELOADED_LIBRARIES = ["numpy", "pandas", "matplotlib"] as const;

/**
 * Whether a run's code wants a preloading container: it names one of PRELOADED_LIBRARIES
 * anywhere (an import, a comment, a string: a plain substring test, linear in the code's
 * length). A wrong guess costs only time: code that imports one in a lean container imports it
 * itself, and every container is fresh and used once either way.
 */
export function containerNeed(code: string): ContainerNeed {
  return PRELOADED_LIBRARIES.some((name) => code.includes(name)) ? "preloaded" : "lean";
}
