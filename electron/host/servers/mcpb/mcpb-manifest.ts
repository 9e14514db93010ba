// The part of an MCP Bundle's manifest.json that Code Mode acts on (MANIFEST.md of the MCPB
// spec, versions 0.1 to 0.4): how the server starts, where it runs, and what the user must
// give it. Fields only shown to people in other apps (icons, prompts, screenshots) pass
// through unchecked; what we act on is checked strictly, so a bundle is refused with a reason
// rather than started differently from what it says.
import { z } from "zod";
import { BundleError, type ZipArchive } from "./zip-reader.js";
import { MiB } from "../../util/units.js";

/** manifest.json, read before anything is unpacked. */
export const MANIFEST_MAX_BYTES = 1 * MiB;

/** `user_config` options one manifest may declare. */
export const USER_CONFIG_MAX = 64;

/** Problems of a refused manifest listed in its error; the first ones say enough. */
export const MANIFEST_PROBLEMS_SHOWN = 5;

const serverConfig = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});

export const mcpbUserConfigOption = z.looseObject({
  type: z.enum(["string", "number", "boolean", "directory", "file"]),
  title: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
  multiple: z.boolean().optional(),
  sensitive: z.boolean().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});
export type McpbUserConfigOption = z.infer<typeof mcpbUserConfigOption>;

export const mcpbServerTypes = ["node", "python", "binary", "uv"] as const;
export type McpbServerType = (typeof mcpbServerTypes)[number];
export const mcpbPlatforms = ["darwin", "win32", "linux"] as const;

export const mcpbManifest = z
  .looseObject({
    manifest_version: z.string().optional(),
    dxt_version: z.string().optional(),
    name: z.string().min(1),
    display_name: z.string().optional(),
    version: z.string(),
    description: z.string().optional(),
    server: z.looseObject({
      type: z.enum(mcpbServerTypes),
      entry_point: z.string().optional(),
      mcp_config: serverConfig.extend({
        platform_overrides: z.record(z.string(), serverConfig.partial()).optional(),
      }),
    }),
    compatibility: z
      .looseObject({
        platforms: z.array(z.enum(mcpbPlatforms)).optional(),
      })
      .optional(),
    user_config: z
      .record(z.string().min(1), mcpbUserConfigOption)
      .refine((options) => Object.keys(options).length <= USER_CONFIG_MAX, {
        message: `at most ${USER_CONFIG_MAX} options`,
      })
      .optional(),
  })
  .refine((m) => m.manifest_version !== undefined || m.dxt_version !== undefined, {
    message: "manifest_version is missing",
  });
export type McpbManifest = z.infer<typeof mcpbManifest>;

export const MANIFEST_FILE = "manifest.json";

/** The bundle's manifest.json, read and checked before anything is unpacked. */
export function readManifest(archive: ZipArchive): McpbManifest {
  const entry = archive.find(MANIFEST_FILE);
  if (!entry || entry.directory) {
    throw new BundleError(`not an MCP Bundle: it has no ${MANIFEST_FILE} at its top level`);
  }
  if (entry.size > MANIFEST_MAX_BYTES) {
    throw new BundleError(
      `${MANIFEST_FILE} is larger than ${MANIFEST_MAX_BYTES} bytes (the most allowed)`,
    );
  }
  const text = archive.read(entry, MANIFEST_MAX_BYTES).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
  } catch {
    throw new BundleError(`${MANIFEST_FILE} is not valid JSON`);
  }
  const parsed = mcpbManifest.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, MANIFEST_PROBLEMS_SHOWN)
      .map((issue) => `${issue.path.join(".") || "(top)"}: ${issue.message}`);
    throw new BundleError(
      `${MANIFEST_FILE} is not a manifest Code Mode can use: ${problems.join("; ")}`,
    );
  }
  return parsed.data;
}
