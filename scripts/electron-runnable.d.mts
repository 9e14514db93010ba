export function electronBinary(): string | undefined;
export function whyNoElectron(options: {
  binary: string | undefined;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
}): string | null;
