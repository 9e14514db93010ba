// A zip reader for MCP Bundles, written for hostile input: a .mcpb comes from anywhere and is
// unpacked into the data directory, then run. Every name is checked before a byte is written
// (no absolute paths, no "..", no backslashes, no links or devices), the entry count and the
// total size are capped, and inflation is bounded by what is left of the budget, so a header
// that lies about its size (a zip bomb) stops at the cap instead of filling the disk.
// Only what bundles use is supported: stored and deflated files, no ZIP64, no encryption.
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { inflateRawSync } from "node:zlib";

/** Characters of an archive entry's name quoted in an error (the name may be far longer). */
export const ENTRY_NAME_SHOWN_CHARS = 200;

export interface ZipLimits {
  entriesMax: number;
  unpackedMaxBytes: number;
  entryNameMaxChars: number;
}

/** The bundle is unusable, with a reason a user can read. */
export class BundleError extends Error {
  override readonly name = "BundleError";
}

export interface ZipEntry {
  /** The path inside the zip, "/"-separated; folders end with "/". */
  name: string;
  directory: boolean;
  /** Any execute bit set in the Unix mode the zip recorded. */
  executable: boolean;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const STORED = 0;
const DEFLATED = 8;
const UNIX_TYPE_MASK = 0o170000;
const UNIX_REGULAR = 0o100000;
const UNIX_DIRECTORY = 0o040000;
const UNIX_SYMLINK = 0o120000;
const MADE_BY_UNIX = 3;
// `mcpb sign` appends a PKCS#7 block between these markers after the zip. It is not checked
// here (Code Mode does not verify publishers), only cut off so the zip can be read.
const SIGNATURE_HEADER = Buffer.from("MCPB_SIG_V1");
const SIGNATURE_FOOTER = Buffer.from("MCPB_SIG_END");

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function withoutSignature(bytes: Buffer): Buffer {
  if (!bytes.subarray(bytes.length - SIGNATURE_FOOTER.length).equals(SIGNATURE_FOOTER)) {
    return bytes;
  }
  const header = bytes.lastIndexOf(SIGNATURE_HEADER);
  return header > 0 ? bytes.subarray(0, header) : bytes;
}

/** Why a path inside the zip may not be written, or null when it is a plain relative path. */
export function unsafeNameReason(name: string, maxChars: number): string | null {
  if (name.length === 0) return "an empty name";
  if (name.length > maxChars) return `a name longer than ${maxChars} characters`;
  if (name.includes("\0")) return "a NUL character";
  if (name.includes("\\")) return "a backslash (paths in a zip use /)";
  if (name.startsWith("/")) return "an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "a drive letter";
  const segments = name.endsWith("/") ? name.slice(0, -1).split("/") : name.split("/");
  for (const segment of segments) {
    if (segment === "..") return 'a ".." segment';
    if (segment === "." || segment === "") return "an empty or '.' segment";
  }
  return null;
}

/** A zip opened in memory: its checked entries, each readable on its own. */
export class ZipArchive {
  private constructor(
    private readonly bytes: Buffer,
    readonly entries: readonly ZipEntry[],
    private readonly limits: ZipLimits,
  ) {}

  /** Reads the central directory and checks every entry; BundleError on anything unsafe. */
  static open(input: Buffer, limits: ZipLimits): ZipArchive {
    const bytes = withoutSignature(input);
    if (bytes.length < EOCD_SIZE) throw new BundleError("not a zip file (too short)");
    let eocd = -1;
    const lowest = Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT);
    for (let at = bytes.length - EOCD_SIZE; at >= lowest; at--) {
      if (bytes.readUInt32LE(at) === EOCD_SIGNATURE) {
        eocd = at;
        break;
      }
    }
    if (eocd < 0) throw new BundleError("not a zip file (no end of central directory)");
    const diskEntries = bytes.readUInt16LE(eocd + 8);
    const count = bytes.readUInt16LE(eocd + 10);
    const cdSize = bytes.readUInt32LE(eocd + 12);
    const cdOffset = bytes.readUInt32LE(eocd + 16);
    if (bytes.readUInt16LE(eocd + 4) !== 0 || bytes.readUInt16LE(eocd + 6) !== 0) {
      throw new BundleError("a zip split over several files is not supported");
    }
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      throw new BundleError("ZIP64 archives are not supported");
    }
    if (diskEntries !== count) throw new BundleError("the zip's entry counts disagree");
    if (count > limits.entriesMax) {
      throw new BundleError(`the bundle holds ${count} entries; at most ${limits.entriesMax}`);
    }
    if (cdOffset + cdSize > eocd) throw new BundleError("the zip's central directory is cut");

    const entries: ZipEntry[] = [];
    const seen = new Set<string>();
    let declaredTotal = 0;
    let at = cdOffset;
    for (let index = 0; index < count; index++) {
      if (at + 46 > cdOffset + cdSize || bytes.readUInt32LE(at) !== CENTRAL_SIGNATURE) {
        throw new BundleError("the zip's central directory is damaged");
      }
      const madeBy = bytes.readUInt16LE(at + 4) >>> 8;
      const flags = bytes.readUInt16LE(at + 8);
      const method = bytes.readUInt16LE(at + 10);
      const crc = bytes.readUInt32LE(at + 16);
      const compressedSize = bytes.readUInt32LE(at + 20);
      const size = bytes.readUInt32LE(at + 24);
      const nameLength = bytes.readUInt16LE(at + 28);
      const extraLength = bytes.readUInt16LE(at + 30);
      const commentLength = bytes.readUInt16LE(at + 32);
      const external = bytes.readUInt32LE(at + 38);
      const localOffset = bytes.readUInt32LE(at + 42);
      const end = at + 46 + nameLength + extraLength + commentLength;
      if (end > cdOffset + cdSize) throw new BundleError("the zip's central directory is cut");
      // Bit 11: the name is UTF-8; otherwise it is CP437, whose ASCII part is all a path needs.
      const rawName = bytes.subarray(at + 46, at + 46 + nameLength);
      const name = rawName.toString(flags & 0x800 ? "utf8" : "latin1");
      at = end;

      const shown = JSON.stringify(name.slice(0, ENTRY_NAME_SHOWN_CHARS));
      const unsafe = unsafeNameReason(name, limits.entryNameMaxChars);
      if (unsafe !== null) throw new BundleError(`entry ${shown} is refused: ${unsafe}`);
      if (flags & 0x1) throw new BundleError(`entry ${shown} is encrypted`);
      if (method !== STORED && method !== DEFLATED) {
        throw new BundleError(`entry ${shown} uses compression method ${method}`);
      }
      const mode = external >>> 16;
      const type = mode & UNIX_TYPE_MASK;
      if (madeBy === MADE_BY_UNIX && type === UNIX_SYMLINK) {
        throw new BundleError(`entry ${shown} is a symbolic link; bundles may hold only files`);
      }
      const directory = name.endsWith("/");
      if (
        madeBy === MADE_BY_UNIX &&
        type !== 0 &&
        type !== UNIX_REGULAR &&
        type !== UNIX_DIRECTORY
      ) {
        throw new BundleError(`entry ${shown} is not a plain file or folder`);
      }
      // Case folded: "A" and "a" are one file on the file systems of macOS and Windows.
      const key = name.toLowerCase().normalize("NFC").replace(/\/$/, "");
      if (seen.has(key)) throw new BundleError(`entry ${shown} appears more than once`);
      seen.add(key);
      declaredTotal += size;
      if (declaredTotal > limits.unpackedMaxBytes) {
        throw new BundleError(
          `the bundle unpacks to more than ${limits.unpackedMaxBytes} bytes (the most allowed)`,
        );
      }
      entries.push({
        name,
        directory,
        executable: madeBy === MADE_BY_UNIX && (mode & 0o111) !== 0,
        method,
        crc,
        compressedSize,
        size,
        localOffset,
      });
    }
    return new ZipArchive(bytes, entries, limits);
  }

  find(name: string): ZipEntry | undefined {
    return this.entries.find((entry) => entry.name === name);
  }

  /**
   * One file's bytes, inflated to at most `budget` bytes (and never more than its header
   * declares): a lying header is found out after at most that much work.
   */
  read(entry: ZipEntry, budget: number = this.limits.unpackedMaxBytes): Buffer {
    const shown = JSON.stringify(entry.name.slice(0, ENTRY_NAME_SHOWN_CHARS));
    const at = entry.localOffset;
    if (at + 30 > this.bytes.length || this.bytes.readUInt32LE(at) !== LOCAL_SIGNATURE) {
      throw new BundleError(`entry ${shown}: its local header is missing`);
    }
    const start = at + 30 + this.bytes.readUInt16LE(at + 26) + this.bytes.readUInt16LE(at + 28);
    const end = start + entry.compressedSize;
    if (end > this.bytes.length) throw new BundleError(`entry ${shown}: its data is cut`);
    const raw = this.bytes.subarray(start, end);
    const allowed = Math.min(entry.size, budget);
    let data: Buffer;
    if (entry.method === STORED) {
      data = raw;
    } else {
      try {
        // One byte over what may come out is enough to know the header lied.
        data = inflateRawSync(raw, { maxOutputLength: allowed + 1 });
      } catch (error) {
        if (error instanceof RangeError) {
          throw new BundleError(
            `entry ${shown} inflates to more than ${allowed} bytes (its header says ${entry.size})`,
          );
        }
        throw new BundleError(`entry ${shown} is not valid deflate data`);
      }
    }
    if (data.length > allowed) {
      throw new BundleError(
        `entry ${shown} holds more than ${allowed} bytes (its header says ${entry.size})`,
      );
    }
    if (data.length !== entry.size) {
      throw new BundleError(`entry ${shown} holds ${data.length} bytes, not ${entry.size}`);
    }
    if (crc32(data) !== entry.crc) throw new BundleError(`entry ${shown} fails its CRC check`);
    return data;
  }

  /**
   * Writes every entry under `dest`, which must not exist yet: the files go to a sibling
   * folder first and it is renamed into place once all of them are written, so a refused
   * bundle leaves nothing behind. Files are created exclusively (never through an existing
   * path) with 0755 when the zip marks them executable, else 0644.
   */
  async extractTo(dest: string): Promise<void> {
    const staging = `${dest}.partial`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true, mode: 0o755 });
    try {
      let left = this.limits.unpackedMaxBytes;
      for (const entry of this.entries) {
        const target = path.resolve(staging, entry.name);
        // Names were checked already; this is the last word on staying inside the folder.
        if (!target.startsWith(staging + path.sep)) {
          throw new BundleError(
            `entry ${JSON.stringify(entry.name)} would leave the bundle folder`,
          );
        }
        if (entry.directory) {
          await mkdir(target, { recursive: true, mode: 0o755 });
          continue;
        }
        const data = this.read(entry, left);
        left -= data.length;
        await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
        await writeFile(target, data, { flag: "wx", mode: entry.executable ? 0o755 : 0o644 });
      }
      await rename(staging, dest);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      if (error instanceof BundleError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new BundleError(`the bundle could not be unpacked: ${code}`);
    }
  }
}
