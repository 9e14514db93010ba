// Puts together the files a run attached (attach(path)) from the runner's file lines, each
// checked as image lines are (image-receiver.ts): ids in order, one file open at a time, every
// chunk valid base64 within the size its start declared, the declared sizes within the run's
// budget. Any miss ends the run as a protocol violation; nothing past a declared size is kept.
import { ATTACH_LIMITS } from "../../../../shared/limits.js";
import type { RunFileData } from "../../core/ports/run-types.js";
import { sha256Hex } from "../../util/sha256-hex.js";
import { isBase64 } from "./image-receiver.js";
import type { RunnerMessage } from "./runner-messages.js";

type FileMessage = Extract<RunnerMessage, { type: "file_start" | "file_data" | "file_end" }>;

export type FileStep = { ok: true; file?: RunFileData } | { ok: false; reason: string };

export class FileReceiver {
  readonly files: RunFileData[] = [];
  private open: {
    id: number;
    name: string;
    mime: string;
    bytes: number;
    parts: Buffer[];
    got: number;
  } | null = null;
  private declaredTotal = 0;

  constructor(
    private readonly limits: { perRun: number; totalBytesPerRun: number } = ATTACH_LIMITS,
  ) {}

  take(message: FileMessage): FileStep {
    switch (message.type) {
      case "file_start": {
        if (this.open !== null) return fail("a file started before the previous one ended");
        if (message.id !== this.files.length + 1) return fail("a file id was out of order");
        if (message.id > this.limits.perRun) {
          return fail(`the run attached more than ${this.limits.perRun} files`);
        }
        if (this.declaredTotal + message.bytes > this.limits.totalBytesPerRun) {
          return fail(`the run's attached files went over ${this.limits.totalBytesPerRun} bytes`);
        }
        this.declaredTotal += message.bytes;
        const { id, name, mime, bytes } = message;
        this.open = { id, name, mime, bytes, parts: [], got: 0 };
        return { ok: true };
      }
      case "file_data": {
        const open = this.open;
        if (open?.id !== message.id) return fail("a file chunk did not belong to an open file");
        if (!isBase64(message.data)) return fail("a file chunk was not base64");
        const part = Buffer.from(message.data, "base64");
        if (open.got + part.length > open.bytes) {
          return fail("an attached file was longer than its start declared");
        }
        open.parts.push(part);
        open.got += part.length;
        return { ok: true };
      }
      case "file_end": {
        const open = this.open;
        if (open?.id !== message.id) return fail("a file end did not belong to an open file");
        this.open = null;
        if (open.got !== open.bytes)
          return fail("an attached file was shorter than its start declared");
        const data = Buffer.concat(open.parts, open.got);
        const file: RunFileData = {
          name: open.name,
          bytes: data.length,
          sha256: sha256Hex(data),
          mimeType: open.mime,
          data,
        };
        this.files.push(file);
        return { ok: true, file };
      }
    }
  }
}

function fail(reason: string): FileStep {
  return { ok: false, reason };
}
