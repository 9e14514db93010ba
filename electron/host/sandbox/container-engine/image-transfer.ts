// Moving an image to an engine that cannot pull it: the sandbox image's base (FROM) where no
// registry is reachable, or the built sandbox image itself onto a remote engine. The image goes
// as a `docker save` archive: from another engine this machine reaches, or from a file.
import type { Readable } from "node:stream";
import type Dockerode from "dockerode";

/** The image a Dockerfile builds FROM (its first FROM line), or null when there is none. */
export function baseImageOf(dockerfile: string): string | null {
  for (const raw of dockerfile.split("\n")) {
    const line = raw.trim();
    if (!line.toUpperCase().startsWith("FROM ")) continue;
    const words = line
      .slice(5)
      .trim()
      .split(" ")
      .filter((w) => w !== "" && !w.startsWith("--"));
    return words[0] ?? null;
  }
  return null;
}

/** Whether the engine has the image (Podman also knows a short name as localhost/NAME). */
export async function hasImage(docker: Dockerode, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch {
    return false;
  }
}

/** Loads a `docker save` archive into the engine; resolves once the engine has read it all. */
export async function loadArchive(docker: Dockerode, archive: Readable): Promise<void> {
  const progress = (await docker.loadImage(archive)) as unknown as Readable;
  const failure = { text: "" };
  await new Promise<void>((resolve, reject) => {
    let tail = "";
    progress.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-4_096);
      // A failed load is a line {"errorDetail":...,"error":"..."} in an otherwise good stream.
      const at = tail.indexOf('"error"');
      if (at !== -1 && failure.text === "") failure.text = tail.slice(at, at + 300);
    });
    progress.once("end", resolve);
    progress.once("error", reject);
    archive.once("error", reject);
  });
  if (failure.text !== "") throw new Error(`the engine did not load the image: ${failure.text}`);
}

/** Copies `image` from one engine to another (the archive streams through this process). */
export async function copyImage(from: Dockerode, to: Dockerode, image: string): Promise<void> {
  const archive = (await from.getImage(image).get()) as unknown as Readable;
  await loadArchive(to, archive);
}
