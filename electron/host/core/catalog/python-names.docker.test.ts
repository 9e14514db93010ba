import { afterAll, describe, expect, it } from "vitest";
import { dockerOrSkip, testOwner } from "../../../../test-support/docker.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import { PYTHON_BUILTINS, PYTHON_KEYWORDS } from "./python-names.js";

const fx = await dockerOrSkip();

// Skipped only outside CI when no engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("python names against the sandbox's own Python", () => {
  const sandbox = fx
    ? new Sandbox({
        engine: fx.engine,
        image: fx.image,
        owner: testOwner(),
        poolSize: 0,
      })
    : null;

  afterAll(async () => {
    await sandbox?.close();
  });

  it("reserves exactly the keywords and builtins of the Python the code runs on", async () => {
    const result = await sandbox!.run({
      code:
        "import builtins, json, keyword, sys\n" +
        "print(json.dumps([sys.version_info[:2], keyword.kwlist, sorted(n for n in dir(builtins) " +
        "if not (n.startswith('__') and n.endswith('__')))]))",
    });
    const [version, keywords, builtins] = JSON.parse(result.stdout) as [
      number[],
      string[],
      string[],
    ];
    expect(version).toEqual([3, 13]);
    expect([...PYTHON_KEYWORDS].sort()).toEqual([...keywords].sort());
    expect([...PYTHON_BUILTINS].sort()).toEqual([...builtins].sort());
  });
});
