// The desktop app's folder and file picker, as the renderer sees it: `window.codemodeDesktop`,
// exposed by the Electron preload next to the API. The browser UI has none, and its forms
// keep a plain text field.
import { z } from "zod";

export const pickPathParams = z.strictObject({ kind: z.enum(["folder", "file"]) });
export type PickPathParams = z.infer<typeof pickPathParams>;

export interface PathPicker {
  /** The path the user chose, or null when they cancelled. */
  pickPath(params: PickPathParams): Promise<string | null>;
}
