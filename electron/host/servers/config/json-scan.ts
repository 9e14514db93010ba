// A strict one-pass scan of JSON text, beside JSON.parse.
//
// JSON.parse keeps the last of two equal keys without a word, loses the file order of
// integer-like keys, and on Node 20 often reports no position (and quotes the text around the
// error). This strict scanner walks the text once to find the first syntax error's position,
// every duplicate key and the file order of one object's keys. Values still come from JSON.parse.

/**
 * A real config nests four levels (file, mcpServers, entry, env/args). The cap keeps the
 * recursive duplicate-key scan far from the stack limit on hostile or broken input.
 */
export const CONFIG_MAX_NESTING = 64;

export type ScanResult =
  | {
      ok: true;
      /** The path of every key that appears twice in one object (each reported once). */
      duplicates: string[][];
      /** The keys of the object at the top-level key `orderOf`, in file order; null if none. */
      order: string[] | null;
    }
  | { ok: false; position: number; message: string };

class ScanError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

/** Scans the text; values nested deeper than CONFIG_MAX_NESTING are an error. */
export function scanJson(text: string, orderOf: string): ScanResult {
  const duplicates: string[][] = [];
  let keyOrder: string[] | null = null;
  let i = 0;

  const fail = (message: string): never => {
    throw new ScanError(i, i >= text.length ? "the text ends too early" : message);
  };
  const skipSpace = (): void => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const expect = (char: string, message: string): void => {
    if (text.charAt(i) !== char) fail(message);
    i++;
  };

  const scanString = (): string => {
    const start = i;
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const code = text.charCodeAt(i);
      if (code === 0x22) break;
      if (code < 0x20) fail("a control character inside a string must be escaped");
      if (code === 0x5c) {
        const next = text.charAt(i + 1);
        if (next === "u") {
          if (!/^[0-9A-Fa-f]{4}$/.test(text.slice(i + 2, i + 6))) {
            i++;
            fail("\\u must be followed by four hex digits");
          }
          i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(next) || next === "") {
          i++;
          fail("invalid escape in a string");
        }
        i += 2;
        continue;
      }
      i++;
    }
    i++; // closing quote
    return JSON.parse(text.slice(start, i)) as string;
  };

  const digits = (): void => {
    if (!/[0-9]/.test(text.charAt(i))) fail("a number needs a digit here");
    while (/[0-9]/.test(text.charAt(i))) i++;
  };
  const scanNumber = (): void => {
    if (text.charAt(i) === "-") i++;
    if (text.charAt(i) === "0") i++;
    else digits();
    if (text.charAt(i) === ".") {
      i++;
      digits();
    }
    if (text.charAt(i) === "e" || text.charAt(i) === "E") {
      i++;
      if (text.charAt(i) === "+" || text.charAt(i) === "-") i++;
      digits();
    }
  };

  const scanValue = (path: string[]): void => {
    if (path.length > CONFIG_MAX_NESTING) fail(`nested deeper than ${CONFIG_MAX_NESTING} levels`);
    skipSpace();
    const char = text.charAt(i);
    if (char === "{") scanObject(path);
    else if (char === "[") scanArray(path);
    else if (char === '"') scanString();
    else if (char === "-" || /[0-9]/.test(char)) scanNumber();
    else {
      const literal = ["true", "false", "null"].find((word) => text.startsWith(word, i));
      if (literal === undefined) fail(`unexpected character ${JSON.stringify(char)}`);
      else i += literal.length;
    }
  };

  const scanObject = (path: string[]): void => {
    i++;
    const seen = new Set<string>();
    const reported = new Set<string>();
    const order: string[] = [];
    skipSpace();
    if (text.charAt(i) === "}") {
      i++;
    } else {
      for (;;) {
        skipSpace();
        if (text.charAt(i) !== '"') fail("expected a property name in double quotes");
        const key = scanString();
        if (seen.has(key) && !reported.has(key)) {
          reported.add(key);
          duplicates.push([...path, key]);
        }
        seen.add(key);
        order.push(key);
        skipSpace();
        expect(":", 'expected ":" after a property name');
        scanValue([...path, key]);
        skipSpace();
        if (text.charAt(i) === ",") {
          i++;
          continue;
        }
        expect("}", 'expected "," or "}" after a property value');
        break;
      }
    }
    if (path.length === 1 && path[0] === orderOf) keyOrder = order;
  };

  const scanArray = (path: string[]): void => {
    i++;
    skipSpace();
    if (text.charAt(i) === "]") {
      i++;
      return;
    }
    for (let index = 0; ; index++) {
      scanValue([...path, String(index)]);
      skipSpace();
      if (text.charAt(i) === ",") {
        i++;
        continue;
      }
      expect("]", 'expected "," or "]" after an array item');
      return;
    }
  };

  try {
    scanValue([]);
    skipSpace();
    if (i < text.length) fail("unexpected text after the JSON value");
    return { ok: true, duplicates, order: keyOrder };
  } catch (error) {
    if (error instanceof ScanError) {
      return { ok: false, position: error.position, message: error.message };
    }
    throw error;
  }
}

/** 1-based line and column of a position in the text. */
export function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const lastBreak = before.lastIndexOf("\n");
  return { line: before.split("\n").length, column: position - lastBreak };
}
