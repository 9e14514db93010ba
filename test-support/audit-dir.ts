// The audit tests' one set-up: a fresh audit directory for each test, removed after it.
// Apart from audit-fixtures.ts, which the benches import too and so must not need vitest.
import { afterEach, beforeEach } from "vitest";
import { makeTempDir } from "./audit-fixtures.js";

/** Before each test of the file, `use` is given a new audit directory; after it, it is removed. */
export function useAuditDir(use: (dir: string) => void): void {
  let remove: () => Promise<void> = () => Promise.resolve();
  beforeEach(async () => {
    const made = await makeTempDir();
    remove = made.remove;
    use(made.dir);
  });
  afterEach(() => remove());
}
