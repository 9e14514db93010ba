import path from "node:path";
import { BrowserWindow, shell } from "electron";

// Injected by Forge's Vite plugin at build time.
declare const MAIN_WINDOW_VITE_DEV_SERVER_URL: string | undefined;
declare const MAIN_WINDOW_VITE_NAME: string;

/**
 * The one window. Locked down like a web page: no Node in the renderer, context isolation,
 * the Chromium sandbox, no navigation away and no new windows (links open in the browser).
 * Closing it only hides it: Code Mode keeps running in the tray.
 */
export function createMainWindow(preloadPath: string, isQuitting: () => boolean): BrowserWindow {
  const window = new BrowserWindow({
    width: 1180,
    height: 800,
    minWidth: 820,
    minHeight: 560,
    show: false,
    title: "Code Mode",
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webSecurity: true,
      spellcheck: false,
    },
  });
  window.once("ready-to-show", () => window.show());
  window.on("close", (event) => {
    if (!isQuitting()) {
      event.preventDefault();
      window.hide();
    }
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith("https://")) void shell.openExternal(url);
    return { action: "deny" };
  });
  window.webContents.on("will-navigate", (event) => event.preventDefault());
  if (MAIN_WINDOW_VITE_DEV_SERVER_URL) void window.loadURL(MAIN_WINDOW_VITE_DEV_SERVER_URL);
  else
    void window.loadFile(path.join(__dirname, `../renderer/${MAIN_WINDOW_VITE_NAME}/index.html`));
  return window;
}

/** Opens the window on a page of the UI (the renderer routes by hash). */
export function showPage(window: BrowserWindow, hash: string): void {
  void window.webContents.executeJavaScript(`location.hash = ${JSON.stringify(hash)}`);
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}
