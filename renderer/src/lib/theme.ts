// Light and dark themes: follow the system until the user picks one; the pick is kept.
import { useCallback, useEffect, useSyncExternalStore } from "react";

export type ThemeChoice = "system" | "light" | "dark";
export type Theme = "light" | "dark";

const STORAGE_KEY = "codemode.theme";
const media = () => window.matchMedia("(prefers-color-scheme: dark)");
const listeners = new Set<() => void>();

function readChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  const mq = media();
  mq.addEventListener("change", onChange);
  window.addEventListener("storage", onChange);
  return () => {
    listeners.delete(onChange);
    mq.removeEventListener("change", onChange);
    window.removeEventListener("storage", onChange);
  };
}

function snapshot(): string {
  return `${readChoice()}:${media().matches ? "dark" : "light"}`;
}

/** Sets `data-theme` on <html> before the first paint, so there is no flash. */
export function applyStoredTheme(): void {
  const choice = readChoice();
  const theme: Theme = choice === "system" ? (media().matches ? "dark" : "light") : choice;
  document.documentElement.dataset.theme = theme;
}

export function useTheme(): {
  choice: ThemeChoice;
  theme: Theme;
  setChoice: (choice: ThemeChoice) => void;
  toggle: () => void;
} {
  const snap = useSyncExternalStore(subscribe, snapshot);
  const [choice, system] = snap.split(":") as [ThemeChoice, Theme];
  const theme: Theme = choice === "system" ? system : choice;

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
  }, [theme]);

  const setChoice = useCallback((next: ThemeChoice) => {
    try {
      if (next === "system") localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // Without storage the choice lasts for this page only.
    }
    for (const listener of [...listeners]) listener();
  }, []);

  const toggle = useCallback(() => {
    setChoice(theme === "dark" ? "light" : "dark");
  }, [setChoice, theme]);

  return { choice, theme, setChoice, toggle };
}
