// For a test's vi.mock of node:fs/promises: the next open() runs through a hook, which gets the
// real call to make (or not) and can act as another process around it. The module comes in as
// an argument, never imported here: a factory importing it would meet its own mock.
import type * as FsPromises from "node:fs/promises";

export type Open = (typeof FsPromises)["open"];

/** The hook for the next open() only: taken (set back to null) as that call begins. */
export interface OpenHook {
  next: ((real: () => ReturnType<Open>) => ReturnType<Open>) | null;
}

/** `actual` with its open() run through `hook.next` once per setting. */
export function withOpenHook(actual: typeof FsPromises, hook: OpenHook): typeof FsPromises {
  return {
    ...actual,
    open: (...args: Parameters<Open>) => {
      const next = hook.next;
      hook.next = null;
      return next !== null ? next(() => actual.open(...args)) : actual.open(...args);
    },
  };
}
