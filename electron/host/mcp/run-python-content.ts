// What run_python sends back as its content, and the size of that content, in one place: the
// run's receipt in the audit log measures exactly what the server returns.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RunResult } from "../../../shared/run-result.js";
import { jsonUtf8Bytes } from "../bridge/json-bytes.js";

/** The text first (clients that show one item show it), then each image the code attached. */
export function runPythonContent(
  result: RunResult,
  pngs: readonly Buffer[],
): CallToolResult["content"] {
  return [
    { type: "text", text: JSON.stringify(result) },
    ...pngs.map((png) => ({
      type: "image" as const,
      data: png.toString("base64"),
      mimeType: "image/png",
    })),
  ];
}

/**
 * UTF-8 bytes of runPythonContent's JSON for this result, its images counted from their sizes
 * (base64 needs no escaping), so the PNGs need not be at hand or encoded again.
 */
export function runPythonContentBytes(result: RunResult): number {
  const text = jsonUtf8Bytes([{ type: "text", text: JSON.stringify(result) }]);
  const emptyImage = jsonUtf8Bytes({ type: "image", data: "", mimeType: "image/png" });
  // Each image adds a comma and its item to the array.
  return result.images.reduce(
    (total, image) => total + 1 + emptyImage + 4 * Math.ceil(image.bytes / 3),
    text,
  );
}
