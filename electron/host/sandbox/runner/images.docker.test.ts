// show() and plt.show() in the real sandbox: real matplotlib and Pillow in the real image, the
// PNG crossing the runner -> host pipe in chunks, checked line by line. And the hostile side:
// the code shares the runner's process, so it can write image lines of its own to the pipe.

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { IMAGE_LIMITS } from "../../../../shared/limits.js";
import type { RunResult } from "../../../../shared/run-result.js";
import { dockerOrSkip, leftoverContainers, testOwner } from "../../../../test-support/docker.js";
import type { RunImageData } from "../../core/ports/run-types.js";
import { pngSize } from "./image-receiver.js";
import { Sandbox } from "../sandbox.js";

const fx = await dockerOrSkip();

/**
 * Python that writes `lines` (a list of bytes expressions) to every descriptor the runner could
 * have kept for its protocol pipe, as hostile code would, then ends normally.
 */
function forge(lines: string[]): string {
  return [
    "import json, os, base64",
    `lines = [${lines.join(", ")}]`,
    "for fd in range(3, 64):",
    "    try:",
    "        for line in lines:",
    "            os.write(fd, line)",
    "    except OSError:",
    "        pass",
  ].join("\n");
}
const line = (python: string): string => `json.dumps(${python}).encode() + b"\\n"`;
/** A real 1x1 PNG, made by Pillow inside the sandbox. */
const PNG_EXPR =
  "(lambda io, Image: (lambda b: (Image.new('RGB', (1, 1)).save(b, 'PNG'), b.getvalue())[1])(io.BytesIO()))(__import__('io'), __import__('PIL.Image').Image)";

describe.skipIf(!fx)("images from the real sandbox", () => {
  let sandbox: Sandbox;

  beforeAll(() => {
    sandbox = new Sandbox({
      engine: fx!.engine,
      image: fx!.image,
      owner: testOwner(),
      poolSize: 1,
    });
  });

  afterEach(async () => {
    await sandbox.settle();
  });

  afterAll(async () => {
    await sandbox.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  async function run(code: string): Promise<{ result: RunResult; images: RunImageData[] }> {
    const images: RunImageData[] = [];
    const result = await sandbox.run(
      { code, deadlineSeconds: 40 },
      { onImage: (i) => images.push(i) },
    );
    return { result, images };
  }

  function expectPng(image: RunImageData | undefined): void {
    expect(image).toBeDefined();
    expect(pngSize(image!.png)).toEqual({ width: image!.width, height: image!.height });
    expect(image!.sha256).toBe(createHash("sha256").update(image!.png).digest("hex"));
    expect(image!.bytes).toBe(image!.png.length);
  }

  it("plt.show() attaches every open matplotlib figure as a PNG", async () => {
    const { result, images } = await run(
      [
        "import matplotlib.pyplot as plt",
        "plt.plot([1, 2, 3], [4, 1, 9])",
        "plt.title('sales')",
        "plt.figure()",
        "plt.bar(['a', 'b'], [3, 5])",
        "print('before')",
        "plt.show()",
        "print(len(plt.get_fignums()))",
      ].join("\n"),
    );
    expect(result).toMatchObject({ error: null, stopped: null, stdout: "before\n0\n" });
    expect(result.images.map((i) => i.name)).toEqual(["figure-1.png", "figure-2.png"]);
    expect(images).toHaveLength(2);
    for (const image of images) expectPng(image);
    expect(images[0]!.width).toBeGreaterThan(100);
    // The result lists what was attached, without the bytes.
    expect(result.images[0]).toEqual({
      name: "figure-1.png",
      bytes: images[0]!.bytes,
      sha256: images[0]!.sha256,
      width: images[0]!.width,
      height: images[0]!.height,
    });
  });

  it("show() takes a figure, a PIL image and a file path, with a name", async () => {
    const { result, images } = await run(
      [
        "import matplotlib.pyplot as plt",
        "from PIL import Image",
        "fig, ax = plt.subplots()",
        "ax.plot([0, 1], [1, 0])",
        "show(fig, name='line chart')",
        "show(Image.new('RGB', (64, 48), 'red'))",
        "Image.new('L', (20, 10), 128).save('/tmp/grey.jpg')",
        "show('/tmp/grey.jpg')",
      ].join("\n"),
    );
    expect(result).toMatchObject({ error: null, stopped: null });
    expect(result.images.map((i) => [i.name, i.width, i.height])).toEqual([
      ["line_chart.png", images[0]!.width, images[0]!.height],
      ["image-2.png", 64, 48],
      ["grey.png", 20, 10],
    ]);
    for (const image of images) expectPng(image);
  });

  it(`attaches at most ${IMAGE_LIMITS.perRun} images and says so on stderr`, async () => {
    const { result, images } = await run(
      [
        "from PIL import Image",
        `for i in range(${IMAGE_LIMITS.perRun + 1}):`,
        "    show(Image.new('RGB', (8, 8)), name=f'n{i}')",
      ].join("\n"),
    );
    expect(result).toMatchObject({ error: null, stopped: null });
    expect(images).toHaveLength(IMAGE_LIMITS.perRun);
    expect(result.stderr).toContain(
      `n${IMAGE_LIMITS.perRun}.png was not attached: a run can attach at most ${IMAGE_LIMITS.perRun} images`,
    );
  });

  it(`downscales an image over ${IMAGE_LIMITS.maxBytes} bytes to fit`, async () => {
    const { result, images } = await run(
      [
        "import numpy as np",
        "from PIL import Image",
        "noise = np.random.default_rng(1).integers(0, 256, (1200, 1200, 3), dtype=np.uint8)",
        "show(Image.fromarray(noise), name='noise')",
      ].join("\n"),
    );
    expect(result).toMatchObject({ error: null, stopped: null });
    expect(images).toHaveLength(1);
    expectPng(images[0]);
    expect(images[0]!.bytes).toBeLessThanOrEqual(IMAGE_LIMITS.maxBytes);
    expect(images[0]!.width).toBeLessThan(1200);
    expect(result.stderr).toMatch(/noise\.png was downscaled from \d+ to \d+ bytes/);
  });

  it(`counts every image against ${IMAGE_LIMITS.totalBytesPerRun} bytes per run`, async () => {
    // Noise does not compress: each PNG is a little over its 560x560x3 raw bytes (~0.9 MiB),
    // under the per-image cap, so the third passes the run's budget.
    const { result, images } = await run(
      [
        "import numpy as np",
        "from PIL import Image",
        "rng = np.random.default_rng(2)",
        "for i in range(3):",
        "    show(Image.fromarray(rng.integers(0, 256, (560, 560, 3), dtype=np.uint8)), name=f'n{i}')",
      ].join("\n"),
    );
    expect(result).toMatchObject({ error: null, stopped: null });
    expect(images.map((i) => i.name)).toEqual(["n0.png", "n1.png"]);
    expect(images.every((i) => i.bytes <= IMAGE_LIMITS.maxBytes)).toBe(true);
    expect(result.stderr).toContain(
      `n2.png was not attached: the run's images would pass ${IMAGE_LIMITS.totalBytesPerRun} bytes together`,
    );
  });

  it("a PNG whose header is broken is left out with a note", async () => {
    const { result, images } = await run(
      "show(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(40), name='broken')",
    );
    expect(result).toMatchObject({ error: null, stopped: null });
    expect(images).toEqual([]);
    expect(result.stderr).toBe(
      "show(): broken.png was not attached: its bytes are not a valid PNG\n",
    );
  });

  it("a show() of something that is no image is the code's own error", async () => {
    const { result } = await run("show(42)");
    expect(result.exit_code).toBe(1);
    expect(result.error).toContain("TypeError: show() takes a matplotlib figure");
  });

  describe("hostile image lines end the run as a protocol violation", () => {
    const cases: [string, string[], string][] = [
      [
        "a chunk over its size",
        [
          line(`{"type": "image_start", "id": 1, "name": "a.png", "bytes": 1000}`),
          line(`{"type": "image_data", "id": 1, "data": "A" * ${IMAGE_LIMITS.chunkChars + 4}}`),
        ],
        "an image chunk was over its size",
      ],
      [
        "an image over its size",
        [
          line(
            `{"type": "image_start", "id": 1, "name": "a.png", "bytes": ${IMAGE_LIMITS.maxBytes + 1}}`,
          ),
        ],
        `an image was over ${IMAGE_LIMITS.maxBytes} bytes`,
      ],
      [
        "too many images",
        [
          ...Array.from({ length: IMAGE_LIMITS.perRun }, (_, i) => [
            line(`{"type": "image_start", "id": ${i + 1}, "name": "a.png", "bytes": len(png)}`),
            line(`{"type": "image_data", "id": ${i + 1}, "data": base64.b64encode(png).decode()}`),
            line(`{"type": "image_end", "id": ${i + 1}}`),
          ]).flat(),
          line(
            `{"type": "image_start", "id": ${IMAGE_LIMITS.perRun + 1}, "name": "a.png", "bytes": 10}`,
          ),
        ],
        `the run sent more than ${IMAGE_LIMITS.perRun} images`,
      ],
      [
        "bad base64",
        [
          line(`{"type": "image_start", "id": 1, "name": "a.png", "bytes": 30}`),
          line(`{"type": "image_data", "id": 1, "data": "QUJD!!!!"}`),
        ],
        "an image chunk was not base64",
      ],
      [
        "not a PNG",
        [
          line(`{"type": "image_start", "id": 1, "name": "a.png", "bytes": 30}`),
          line(
            `{"type": "image_data", "id": 1, "data": base64.b64encode(b"GIF89a" + bytes(24)).decode()}`,
          ),
          line(`{"type": "image_end", "id": 1}`),
        ],
        "an image was not a PNG",
      ],
    ];
    for (const [what, lines, reason] of cases) {
      it(what, async () => {
        const code = `png = ${PNG_EXPR}\n${forge(lines)}`;
        const { result, images } = await run(code);
        expect(result.stopped).toBe("protocol_violation");
        expect(result.error).toBe(`the run was stopped: ${reason}`);
        expect(images).toHaveLength(what === "too many images" ? IMAGE_LIMITS.perRun : 0);
      });
    }
  });
});
