// Runs every benchmark in turn; each prints its own side-by-side ratios.
await import("./sandbox-latency.js");
