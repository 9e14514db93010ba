/** Byte units for the limits written beside their modules. */
export const KiB = 1024;
export const MiB = 1024 * KiB;
