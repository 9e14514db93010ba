import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Four projects, so a reader (and `npm run test:unit`) can tell what a test needs:
// - unit: beside its module (`*.test.ts`); in process, no Docker engine, no built `dist/`,
//   no server or daemon started: it runs in seconds. Its files share worker threads and the
//   modules loaded in them (isolate: false), which cuts its CPU time by about two thirds;
//   the few files that replace a module with `vi.mock` run isolated, as project `unit-mocks`
//   (`npm run test:unit` runs both).
// - integration: beside its module too (`*.int.test.ts`); starts real processes (the toy MCP
//   server built from source, the shim, a child Node appending to a log), still no Docker and
//   no `dist/`.
// - docker: beside its module too (`*.docker.test.ts`); a real engine and the sandbox image.
// - e2e: `e2e/`; the built CLI, daemon, shim or UI as real processes, most with Docker.
// `npm test` runs all four, one group after another.
const DOCKER = "**/*.docker.test.ts";
const INTEGRATION = "**/*.int.test.ts";
const SOURCE_DIRS = ["electron", "shared", "test-servers", "skills", "bench", "docs"];
const SOURCES = SOURCE_DIRS.map((dir) => `${dir}/**/*.test.ts`);
const RENDERER_TESTS = "renderer/src/**/*.test.mjs";
const root = path.dirname(fileURLToPath(import.meta.url));

/** `vi.mock(...)` or `vi.doMock(...)`, however spaced. */
const MOCK_CALL = /\bvi\s*\.\s*(?:mock|doMock)\s*[(<]/;

/** Every file under `dir` (repo-relative, with "/"), node_modules left out. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...filesUnder(file));
    else if (entry.isFile()) found.push(file);
  }
  return found;
}

/**
 * Unit test files that replace a module with `vi.mock`: in a shared worker the real module may
 * already be loaded by another file, and the mock would then not apply, so they get a fresh
 * module graph each. Found by reading the files rather than listed, so a new one cannot be left
 * in the shared workers by mistake.
 */
function filesThatMock(): string[] {
  const unitTests = [
    ...SOURCE_DIRS.flatMap(filesUnder).filter(
      (file) =>
        file.endsWith(".test.ts") &&
        !file.endsWith(".int.test.ts") &&
        !file.endsWith(".docker.test.ts"),
    ),
    ...filesUnder("renderer/src").filter((file) => file.endsWith(".test.mjs")),
  ];
  // None at all means the walk looked in the wrong place, and every mock would go unisolated.
  if (unitTests.length === 0) throw new Error(`vitest.config.ts found no unit tests under ${root}`);
  return unitTests.filter((file) => MOCK_CALL.test(readFileSync(path.join(root, file), "utf8")));
}
const MOCKS = filesThatMock();

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [...SOURCES, RENDERER_TESTS],
          exclude: [DOCKER, INTEGRATION, ...MOCKS, "**/node_modules/**"],
          // Worker threads start faster than forked processes, and nothing here needs a
          // process of its own (no chdir, no signals to itself).
          pool: "threads",
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "unit-mocks",
          include: MOCKS,
          pool: "threads",
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: [INTEGRATION],
          exclude: [DOCKER, "**/node_modules/**"],
          globalSetup: ["./test-support/integration-setup.ts"],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "docker",
          include: [DOCKER],
          exclude: ["**/node_modules/**"],
          // Docker-backed tests share one engine and 2 cores: run files one after another.
          fileParallelism: false,
          globalSetup: ["./e2e/global-setup.ts"],
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["e2e/**/*.test.ts"],
          exclude: [DOCKER, "**/node_modules/**"],
          fileParallelism: false,
          globalSetup: ["./e2e/global-setup.ts"],
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
