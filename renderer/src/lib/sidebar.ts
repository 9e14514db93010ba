// The sidebar is narrow (icons only) in a narrow window and wide in a wide one, unless the user
// chose: the choice is kept. Below NARROW_WINDOW_PX the page gets the width back that a 215 px
// sidebar took (at 800 px, a quarter of the window).
import { useCallback, useSyncExternalStore } from "react";

/** At or below this window width the sidebar shows icons only, unless the user widened it. */
export const NARROW_WINDOW_PX = 1000;

const STORAGE_KEY = "codemode.sidebar";
const QUERY = `(max-width: ${NARROW_WINDOW_PX}px)`;
const listeners = new Set<() => void>();

type Choice = "collapsed" | "expanded" | null;

function readChoice(): Choice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === "collapsed" || value === "expanded" ? value : null;
  } catch {
    return null;
  }
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  const mq = window.matchMedia(QUERY);
  mq.addEventListener("change", onChange);
  return () => {
    listeners.delete(onChange);
    mq.removeEventListener("change", onChange);
  };
}

function snapshot(): boolean {
  const choice = readChoice();
  return choice === null ? window.matchMedia(QUERY).matches : choice === "collapsed";
}

/** Whether the sidebar is collapsed now, and a toggle that keeps the user's choice. */
export function useSidebar(): { collapsed: boolean; toggle: () => void } {
  const collapsed = useSyncExternalStore(subscribe, snapshot);
  const toggle = useCallback(() => {
    try {
      localStorage.setItem(STORAGE_KEY, snapshot() ? "expanded" : "collapsed");
    } catch {
      // Storage off: the choice lasts as long as this page.
    }
    for (const listener of listeners) listener();
  }, []);
  return { collapsed, toggle };
}
