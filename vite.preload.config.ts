import { defineConfig } from "vite";

// A sandboxed preload must be one CommonJS file (Forge inlines its imports); .cjs because
// of "type": "module".
export default defineConfig({
  build: {
    rollupOptions: {
      output: { format: "cjs", entryFileNames: "[name].cjs" },
    },
  },
});
