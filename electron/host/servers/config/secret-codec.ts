import type { ServersConfig } from "../../core/ports/server-config-types.js";

/**
 * How secret env values are kept at rest. The Electron app passes one backed by the OS
 * keychain (safeStorage); the daemon keeps them in the 0600 config file as written.
 */
export interface SecretCodec {
  encrypt(plain: string): string;
  decrypt(stored: string): string;
}

export const ENCRYPTED_PREFIX = "enc:v1:";

function mapSecrets(config: ServersConfig, change: (value: string) => string): ServersConfig {
  const servers = new Map(
    [...config.servers].map(([name, entry]) => {
      const env = { ...entry.env };
      for (const key of entry.secretEnv) {
        const value = env[key];
        if (value !== undefined) env[key] = change(value);
      }
      return [name, { ...entry, env }] as const;
    }),
  );
  return { servers };
}

export function encryptSecrets(
  config: ServersConfig,
  codec: SecretCodec | undefined,
): ServersConfig {
  if (!codec) return config;
  return mapSecrets(config, (value) => ENCRYPTED_PREFIX + codec.encrypt(value));
}

/** Secrets encrypted by the app, met where no codec can read them (the daemon, no keyring). */
export class NoSecretCodecError extends Error {
  override name = "NoSecretCodecError";
  constructor() {
    super("servers.json holds encrypted secrets that only the Code Mode app can read");
  }
}

/** Throws when a value is encrypted and no codec can read it: never run a server with ciphertext. */
export function decryptSecrets(
  config: ServersConfig,
  codec: SecretCodec | undefined,
): ServersConfig {
  return mapSecrets(config, (value) => {
    if (!value.startsWith(ENCRYPTED_PREFIX)) return value;
    if (!codec) throw new NoSecretCodecError();
    return codec.decrypt(value.slice(ENCRYPTED_PREFIX.length));
  });
}
