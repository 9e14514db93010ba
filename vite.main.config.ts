import path from "node:path";
import { defineConfig } from "vite";

// package.json says "type": "module", so Forge's CommonJS bundle must end in .cjs for
// Electron to load it as CommonJS. The app ships no node_modules: everything is bundled,
// and `ssh2` (which docker-modem loads for ssh:// hosts only) is replaced by a stub.
export default defineConfig({
  build: {
    lib: { entry: "electron/main.ts", formats: ["cjs"], fileName: () => "[name].cjs" },
  },
  // CommonJS has no import.meta: left alone, the bundle reads it as `{}`, and code that finds
  // the package from its own place (paths.ts packageRoot, behind the skill guide of a
  // checkout's `npm start`) fails. This file's own URL is the same walk's start.
  define: { "import.meta.url": 'require("node:url").pathToFileURL(__filename).href' },
  resolve: {
    alias: { ssh2: path.resolve(import.meta.dirname, "electron/stubs/ssh2.cjs") },
  },
});
