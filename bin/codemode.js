#!/usr/bin/env node
// Thin entry: all behaviour lives in run(argv) so tests and other faces can call it.
import { main } from "../dist/electron/host/cli/main.js";

await main();
