import { defineConfig } from "vite";

// package.json says "type": "module", so Forge's CommonJS bundle must end in .cjs for
// Electron to load it as CommonJS. The app ships no node_modules: everything is bundled,
// `ssh2` too (engines reached over ssh://). Its native add-ons (an optional cipher binding
// and cpu-features) are left out: ssh2 loads each in a try and falls back to Node's crypto.
export default defineConfig({
  build: {
    lib: { entry: "electron/main.ts", formats: ["cjs"], fileName: () => "[name].cjs" },
    rollupOptions: { external: [/\.node$/, "cpu-features"] },
  },
  // CommonJS has no import.meta: left alone, the bundle reads it as `{}`, and code that finds
  // the package from its own place (paths.ts packageRoot, behind the skill guide of a
  // checkout's `npm start`) fails. This file's own URL is the same walk's start.
  define: { "import.meta.url": 'require("node:url").pathToFileURL(__filename).href' },
});
