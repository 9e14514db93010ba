// Run by the read-only pin file test as a real process (as another user when the test runs as
// root, whom permission bits do not stop): opens the pin store on FILE, lists a pinned server
// and a new one, flushes, and prints one JSON line saying how it went.
import { ToolPins } from "../electron/host/servers/pins/tool-pins.js";
import { pinnedForm } from "../electron/host/servers/pins/tool-hash.js";

const [file] = process.argv.slice(2);
if (file === undefined) throw new Error("usage: pin-open FILE");
const failures: string[] = [];
try {
  const { pins, problem } = await ToolPins.open(file, {
    saveFailed: (error) => failures.push(String(error)),
  });
  const form = pinnedForm({ name: "tool", inputSchema: { type: "object" } });
  const held = [
    ...pins.observe("pinned", [{ name: "tool", ...form }]),
    ...pins.observe("fresh", [{ name: "tool", ...form }]),
  ];
  await pins.close().catch((error: unknown) => failures.push(String(error)));
  process.stdout.write(`${JSON.stringify({ opened: true, problem, held, failures })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ opened: false, error: String(error) })}\n`);
}
