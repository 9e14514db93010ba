// Types of eslint.layers.js, for layer-fence.test.ts.
import type { Linter } from "eslint";

export declare const LAYERS: readonly (readonly string[])[];
export declare const FACES: readonly string[];
export declare const CORE: readonly string[];
export declare function layerFence(root: string): Linter.Config[];
