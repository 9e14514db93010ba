/**
 * Docker multiplexes a non-TTY container's stdout and stderr on one attached stream:
 * each frame is an 8-byte header (stream type, 3 zero bytes, big-endian length) and
 * its payload. This splits frames as they arrive without re-concatenating the whole
 * backlog on every chunk, so a flood from the container costs linear time.
 */
export type StreamKind = "stdout" | "stderr";

export class DockerStreamDemux {
  private header = Buffer.alloc(8);
  private headerFill = 0;
  private remaining = 0;
  private kind: StreamKind = "stdout";

  constructor(private readonly onData: (kind: StreamKind, data: Buffer) => void) {}

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remaining === 0) {
        const take = Math.min(8 - this.headerFill, chunk.length - offset);
        chunk.copy(this.header, this.headerFill, offset, offset + take);
        this.headerFill += take;
        offset += take;
        if (this.headerFill < 8) return;
        this.headerFill = 0;
        // Type 0 (stdin) never comes back from Docker; treat anything but 2 as stdout.
        this.kind = this.header[0] === 2 ? "stderr" : "stdout";
        this.remaining = this.header.readUInt32BE(4);
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - offset);
      this.onData(this.kind, chunk.subarray(offset, offset + take));
      this.remaining -= take;
      offset += take;
    }
  }
}
