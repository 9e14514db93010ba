import { IMAGE_LIMITS } from "../../../../shared/limits.js";
import type { RunImageData } from "../../core/ports/run-types.js";
import type { RunnerMessage } from "./runner-messages.js";
import { sha256Hex } from "../../util/sha256-hex.js";

type ImageMessage = Extract<RunnerMessage, { type: "image_start" | "image_data" | "image_end" }>;

export type ImageStep = { ok: true; image?: RunImageData } | { ok: false; reason: string };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Signature, then the IHDR chunk's length (13), type, width and height. */
const PNG_HEADER_BYTES = 24;

/**
 * Base64 as the runner writes it (standard alphabet, padded, no whitespace), checked by a
 * plain loop: Buffer.from(text, "base64") would skip any junk silently, and the text is the
 * sandbox's. '=' may only end the chunk, at most twice.
 */
export function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3d) {
      padding++;
      continue;
    }
    if (padding > 0) return false; // data after '='
    const ok =
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      (c >= 0x30 && c <= 0x39) ||
      c === 0x2b ||
      c === 0x2f;
    if (!ok) return false;
  }
  return padding <= 2;
}

/** Width and height from a PNG's header, or null when the bytes do not start as a PNG does. */
export function pngSize(png: Buffer): { width: number; height: number } | null {
  if (png.length < PNG_HEADER_BYTES) return null;
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  if (png.readUInt32BE(8) !== 13 || png.toString("latin1", 12, 16) !== "IHDR") return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * Puts together the images of one run from the runner's image lines, treating each as hostile:
 * ids in order (1, 2, ... up to IMAGE_LIMITS.perRun), one image open at a time, every chunk
 * valid base64 that keeps the image within the size its start declared, the declared sizes
 * within the run's budget, and the finished bytes a PNG of sane dimensions. Any miss is a
 * reason to end the run as a protocol violation. Memory is bounded by the run's budget:
 * nothing past a declared size is kept.
 */
export class ImageReceiver {
  readonly images: RunImageData[] = [];
  private open: { id: number; name: string; bytes: number; parts: Buffer[]; got: number } | null =
    null;
  private declaredTotal = 0;

  constructor(
    private readonly limits: { perRun: number; totalBytesPerRun: number } = IMAGE_LIMITS,
  ) {}

  /** True while an image has started and not ended. */
  get pending(): boolean {
    return this.open !== null;
  }

  take(message: ImageMessage): ImageStep {
    switch (message.type) {
      case "image_start": {
        if (this.open !== null) return fail("an image started before the previous one ended");
        if (message.id !== this.images.length + 1) return fail("an image id was out of order");
        if (message.id > this.limits.perRun) {
          return fail(`the run sent more than ${this.limits.perRun} images`);
        }
        if (this.declaredTotal + message.bytes > this.limits.totalBytesPerRun) {
          return fail(`the run's images went over ${this.limits.totalBytesPerRun} bytes`);
        }
        this.declaredTotal += message.bytes;
        this.open = { id: message.id, name: message.name, bytes: message.bytes, parts: [], got: 0 };
        return { ok: true };
      }
      case "image_data": {
        const open = this.open;
        if (open?.id !== message.id) return fail("an image chunk did not belong to an open image");
        if (!isBase64(message.data)) return fail("an image chunk was not base64");
        const part = Buffer.from(message.data, "base64");
        if (open.got + part.length > open.bytes) {
          return fail("an image was longer than its start declared");
        }
        open.parts.push(part);
        open.got += part.length;
        return { ok: true };
      }
      case "image_end": {
        const open = this.open;
        if (open?.id !== message.id) return fail("an image end did not belong to an open image");
        this.open = null;
        if (open.got !== open.bytes) return fail("an image was shorter than its start declared");
        const png = Buffer.concat(open.parts, open.got);
        const size = pngSize(png);
        if (size === null) return fail("an image was not a PNG");
        if (
          size.width === 0 ||
          size.height === 0 ||
          size.width > IMAGE_LIMITS.maxSidePixels ||
          size.height > IMAGE_LIMITS.maxSidePixels
        ) {
          return fail(
            `an image's sides were not between 1 and ${IMAGE_LIMITS.maxSidePixels} pixels`,
          );
        }
        const image: RunImageData = {
          name: open.name,
          bytes: png.length,
          sha256: sha256Hex(png),
          width: size.width,
          height: size.height,
          png,
        };
        this.images.push(image);
        return { ok: true, image };
      }
    }
  }
}

function fail(reason: string): ImageStep {
  return { ok: false, reason };
}
