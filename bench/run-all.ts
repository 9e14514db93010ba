// Runs every benchmark in turn; each prints its own side-by-side ratios.
await import("./sandbox-latency.js");
await import("./sandbox-preload.js");
await import("./concurrent-calls.js");
await import("./shim-round-trip.js");
await import("./hostile-done-line.js");
await import("./schema-pattern.js");
await import("./run-cost-flood.js");
await import("./audit-checkpoint.js");
await import("./image-lines.js");
await import("./audit-index.js");
await import("./bridge-overhead.js");
await import("./audit-export-memory.js");
await import("./context-economy.js");
await import("./pool-burst.js");
