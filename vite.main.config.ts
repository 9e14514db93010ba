import { defineConfig, type Plugin } from "vite";

const LEFT_OUT = "\0left-out-native:";

/** ssh2's optional native add-ons, each replaced by a module that throws when required. */
const leaveOutNativeAddons: Plugin = {
  name: "leave-out-native-addons",
  enforce: "pre",
  resolveId(id) {
    return id === "cpu-features" || id.endsWith(".node") ? `${LEFT_OUT}${id}` : null;
  },
  load(id) {
    if (!id.startsWith(LEFT_OUT)) return null;
    return `throw new Error(${JSON.stringify(`${id.slice(LEFT_OUT.length)} is not in the bundle`)});`;
  },
};

// package.json says "type": "module", so Forge's CommonJS bundle must end in .cjs for
// Electron to load it as CommonJS. The app ships no node_modules: everything is bundled,
// `ssh2` too (engines reached over ssh://). Its native add-ons (an optional cipher binding
// and cpu-features) are left out: ssh2 requires each inside a try and falls back to Node's
// crypto, so each is bundled as a module that throws, never a require of a file the packaged
// app does not have.
export default defineConfig({
  build: {
    lib: { entry: "electron/main.ts", formats: ["cjs"], fileName: () => "[name].cjs" },
  },
  plugins: [leaveOutNativeAddons],
  // CommonJS has no import.meta: left alone, the bundle reads it as `{}`, and code that finds
  // the package from its own place (paths.ts packageRoot, behind the skill guide of a
  // checkout's `npm start`) fails. This file's own URL is the same walk's start.
  define: { "import.meta.url": 'require("node:url").pathToFileURL(__filename).href' },
});
