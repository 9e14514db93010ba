// Builds zip files byte by byte for tests, including the hostile ones no well-behaved zip tool
// writes: names with "..", absolute paths, symbolic links, and headers that lie about sizes.
import { deflateRawSync } from "node:zlib";
import { crc32 } from "../electron/host/servers/mcpb/zip-reader.js";

export interface ZipItem {
  name: string;
  data?: Buffer | string;
  /** Deflate the data (default true). */
  deflate?: boolean;
  /** Unix mode including the type bits (e.g. 0o120777 for a symlink); default 0o100644. */
  mode?: number;
  /** The uncompressed size the headers claim; default the true size. */
  declaredSize?: number;
}

export function buildZip(items: readonly ZipItem[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const item of items) {
    const name = Buffer.from(item.name, "utf8");
    const raw = Buffer.isBuffer(item.data) ? item.data : Buffer.from(item.data ?? "", "utf8");
    const deflate = item.deflate ?? true;
    const body = deflate ? deflateRawSync(raw) : raw;
    const crc = crc32(raw);
    const size = item.declaredSize ?? raw.length;
    const method = deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    const mode = item.mode ?? (item.name.endsWith("/") ? 0o040755 : 0o100644);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(items.length, 8);
  eocd.writeUInt16LE(items.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}
