import { describe, expect, it } from "vitest";
import { heldNamedIn } from "./held-names.js";

describe("heldNamedIn", () => {
  const held = new Map([
    ["toy__echo", "echo is held"],
    ["toy__add", "add is held"],
  ]);

  it("finds held names the code uses as whole words, once each, in order of use", () => {
    const code = "x = await toy__add({})\ny = await toy__echo({})\nawait toy__add({'a': 1})";
    expect(heldNamedIn(code, held)).toEqual([
      { name: "toy__add", message: "add is held" },
      { name: "toy__echo", message: "echo is held" },
    ]);
  });

  it("ignores names inside longer words, and a code that names none", () => {
    expect(heldNamedIn("my_toy__echo_2 = 1; toy__echoes()", held)).toEqual([]);
    expect(heldNamedIn("print(1)", held)).toEqual([]);
    expect(heldNamedIn("toy__echo", undefined)).toEqual([]);
  });

  it("takes a name at the very start and end, and next to non-ASCII text", () => {
    expect(heldNamedIn("toy__echo", held).map((h) => h.name)).toEqual(["toy__echo"]);
    expect(heldNamedIn("é toy__add", held).map((h) => h.name)).toEqual(["toy__add"]);
    // A non-ASCII letter may be part of an identifier: then it is another name.
    expect(heldNamedIn("toy__addé", held)).toEqual([]);
  });

  it("finds a held tool by its method too, and gives its namespace and method then", () => {
    const methods = new Map([["toy__add", { namespace: "toy", method: "add" }]]);
    expect(heldNamedIn("await toy.add(a=1)", held, methods)).toEqual([
      { name: "toy__add", message: "add is held", namespace: "toy", method: "add" },
    ]);
    expect(heldNamedIn("await toy__add({})", held, methods)).toEqual([
      { name: "toy__add", message: "add is held" },
    ]);
    expect(heldNamedIn("await toy.echo(text='x')", held, methods)).toEqual([]);
  });

  it("scans a large code in linear time", () => {
    const code = "a".repeat(2_000_000) + " toy__echo";
    expect(heldNamedIn(code, held).map((h) => h.name)).toEqual(["toy__echo"]);
  });
});
