import path from "node:path";
import { mergeConfig } from "vite";
import renderer from "./renderer/vite.config.js";

// The window loads .vite/renderer/main_window/index.html (main-window.ts), and the packaged
// app holds nothing of the project but .vite/. The renderer's own config builds to
// renderer/dist (what `codemode daemon --ui` serves), and Forge's Vite plugin lets a user's
// outDir win over its own: given that config as is, Forge left the window blank.
export default mergeConfig(renderer, {
  build: { outDir: path.resolve(import.meta.dirname, ".vite", "renderer", "main_window") },
});
