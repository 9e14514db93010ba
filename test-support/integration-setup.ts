import { buildToyServer } from "./toy-build.js";

/** The integration project's global setup: what its tests start as a real process, built from source. */
export default async function setup(): Promise<void> {
  await buildToyServer();
}
