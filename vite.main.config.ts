import { defineConfig } from "vite";

// package.json says "type": "module", so Forge's CommonJS bundle must end in .cjs for
// Electron to load it as CommonJS. dockerode's optional native SSH helpers stay out
// (Code Mode talks to local sockets and named pipes only).
export default defineConfig({
  build: {
    lib: { entry: "electron/main.ts", formats: ["cjs"], fileName: () => "[name].cjs" },
    rollupOptions: { external: ["ssh2", "cpu-features"] },
  },
});
