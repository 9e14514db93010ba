// Shared by the WrappedServer tests: the toy server's entry, a list of started servers to
// close after each test, and waits on a server's state.

import { existsSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import { TOY_SERVER_UNIT_JS } from "./toy-build.js";
import type { ServerEntry } from "../electron/host/core/ports/server-config-types.js";
import { systemClock, type Clock } from "../electron/host/servers/restart-backoff.js";
import {
  WrappedServer,
  WrappedServerError,
  type ServerState,
  type WrappedServerOptions,
} from "../electron/host/servers/wrapped-server.js";

export const TOY_TOOLS = [
  "add",
  "echo",
  "sleep",
  "big",
  "fail",
  "crash",
  "env",
  "read_secret",
  "send",
  "get-weather",
  "deep",
  "add_tool",
];

const started: WrappedServer[] = [];

/** Closes every server the test started; for afterEach. */
export async function closeStarted(): Promise<void> {
  await Promise.all(started.splice(0).map((server) => server.close()));
}

export function toyEntry(env: Record<string, string> = {}): ServerEntry {
  return {
    command: process.execPath,
    args: [TOY_SERVER_UNIT_JS],
    env,
    secretEnv: [],
    allow: null,
    private: false,
  };
}

export function track(server: WrappedServer): WrappedServer {
  started.push(server);
  return server;
}

export function toy(
  env: Record<string, string> = {},
  options: WrappedServerOptions = {},
): WrappedServer {
  return track(new WrappedServer("toy", toyEntry(env), options));
}

export function noSignal(): AbortSignal {
  return new AbortController().signal;
}

export function callOpts(timeoutMs = 5_000): { signal: AbortSignal; timeoutMs: number } {
  return { signal: noSignal(), timeoutMs };
}

/** Resolves with the first state (current or coming) that matches. */
export function stateWhere(
  server: WrappedServer,
  match: (state: ServerState) => boolean,
  timeoutMs = 10_000,
): Promise<ServerState> {
  if (match(server.info)) return Promise.resolve(server.info);
  return new Promise((resolveState, rejectState) => {
    const timer = setTimeout(() => {
      off();
      rejectState(new Error(`no matching status within ${timeoutMs} ms (now ${server.status})`));
    }, timeoutMs);
    const off = server.on("status", (state) => {
      if (!match(state)) return;
      clearTimeout(timer);
      off();
      resolveState(state);
    });
  });
}

export function readCallLog(file: string): { tool: string; args: unknown }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { tool: string; args: unknown });
}

/** Real timers; records every delay asked for, and lets a test jump "now" forward. */
export function recordingClock(): {
  clock: Clock;
  delays: number[];
  advance: (ms: number) => void;
} {
  const delays: number[] = [];
  let offset = 0;
  return {
    delays,
    advance: (ms) => {
      offset += ms;
    },
    clock: {
      now: () => systemClock.now() + offset,
      setTimer(fn, ms) {
        delays.push(ms);
        return systemClock.setTimer(fn, ms);
      },
    },
  };
}

export async function expectCode(
  promise: Promise<unknown>,
  code: string,
): Promise<WrappedServerError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a rejection with code ${code}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrappedServerError);
  expect((error as WrappedServerError).code).toBe(code);
  return error as WrappedServerError;
}
