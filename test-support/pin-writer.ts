// Run by the pin-file race test as a real process, so writers race for the file for real.
// Each prints "ready" once loaded and starts on a "go" line on stdin:
//   host FILE          - a host's pin store pinning one new server after another, saving each,
//                        until a "stop" line; then prints how many it pinned
//   cli CONFIG NAME MS - `codemode servers accept --config CONFIG NAME --yes`, MS after "go"
import { createInterface } from "node:readline";
import { acceptCommand } from "../electron/host/cli/commands/review-command.js";
import { pinnedForm } from "../electron/host/servers/pins/tool-hash.js";
import { ToolPins } from "../electron/host/servers/pins/tool-pins.js";
import { memoryIO } from "./cli-io.js";

const [mode, target, arg, delay] = process.argv.slice(2);
if (target === undefined) throw new Error("usage: pin-writer host|cli ...");
const lines = createInterface({ input: process.stdin });
const said = (word: string) =>
  new Promise<void>((resolve) => lines.on("line", (line) => line === word && resolve()));
const go = said("go");
const stop = said("stop");

if (mode === "host") {
  const { pins } = await ToolPins.open(target);
  process.stdout.write("ready\n");
  await go;
  let stopped = false;
  void stop.then(() => (stopped = true));
  let count = 0;
  while (!stopped) {
    const name = "tool";
    const form = pinnedForm({ name, inputSchema: { type: "object" } });
    pins.observe(`new${count}`, [{ name, ...form }]);
    count += 1;
    await pins.flush();
  }
  await pins.close();
  process.stdout.write(`${count}\n`);
} else {
  const { io, err } = memoryIO();
  process.stdout.write("ready\n");
  await go;
  await new Promise((resolve) => setTimeout(resolve, Number(delay)));
  const code = await acceptCommand(["--config", target, arg ?? "", "--yes"], io).catch(
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      return 1;
    },
  );
  process.stderr.write(err());
  process.exitCode = code;
}
lines.close();
