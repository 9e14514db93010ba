// The UTF-8 size of a value's JSON, counted without building the JSON: the receipt of a run
// sums every call's result as a classic client would have received it, and a result can be
// megabytes, which need not be copied again only to be measured.

/**
 * `Buffer.byteLength(JSON.stringify(value))`, for plain data (what MCP results are): objects,
 * arrays, strings, numbers, booleans, null; undefined and functions are left out as
 * JSON.stringify leaves them out.
 */
export function jsonUtf8Bytes(value: unknown): number {
  let total = 0;
  // An explicit stack: a deeply nested result must not overflow the call stack.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== "object") {
      total += leafBytes(item);
      continue;
    }
    if (Array.isArray(item)) {
      total += 2 + Math.max(0, item.length - 1);
      for (const element of item) {
        if (element === undefined || typeof element === "function" || typeof element === "symbol")
          total += 4; // null
        else stack.push(element);
      }
      continue;
    }
    const toJSON = (item as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      stack.push((toJSON as () => unknown).call(item));
      continue;
    }
    let fields = 0;
    for (const [key, field] of Object.entries(item)) {
      if (field === undefined || typeof field === "function" || typeof field === "symbol") continue;
      total += stringBytes(key) + 1;
      fields += 1;
      stack.push(field);
    }
    total += 2 + Math.max(0, fields - 1);
  }
  return total;
}

function leafBytes(item: unknown): number {
  switch (typeof item) {
    case "string":
      return stringBytes(item);
    case "number":
      return Number.isFinite(item) ? String(item).length : 4;
    case "boolean":
      return item ? 4 : 5;
    case "object":
      return 4; // null
    default:
      // undefined, functions and symbols at the top: JSON.stringify gives no text at all.
      return 0;
  }
}

/** Bytes of a string as a JSON string literal, quotes and escapes included. */
function stringBytes(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x20) {
      // \b \t \n \f \r have short escapes; the other control characters are \u00XX.
      bytes += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
    } else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 6; // a lone surrogate is written as \uXXXX
    } else if (code >= 0xdc00 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}
