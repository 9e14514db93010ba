import { describe, expect, it } from "vitest";
import { containerNeed } from "./container-need.js";

describe("containerNeed", () => {
  it("code naming a preloaded library wants a preloading container; other code a lean one", () => {
    expect(containerNeed("import pandas, matplotlib.pyplot\nprint(1)")).toBe("preloaded");
    expect(containerNeed("import numpy as np")).toBe("preloaded");
    expect(containerNeed("from matplotlib import pyplot")).toBe("preloaded");
    expect(containerNeed("print(1)")).toBe("lean");
    expect(containerNeed("import json, re\nprint(json.dumps({}))")).toBe("lean");
  });
});
