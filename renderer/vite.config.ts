import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The renderer is one static bundle: loaded by Electron's window from disk, and served by
// `codemode daemon --ui` on 127.0.0.1 for browser mode and the end-to-end tests.
export default defineConfig({
  root: import.meta.dirname,
  base: "./",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true },
});
