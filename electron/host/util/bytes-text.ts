/** Bytes as the messages say them: "1 GiB", "12.5 MiB". */
export function bytesText(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown =
    unit === 0 ? String(value) : value.toFixed(value >= 10 || Number.isInteger(value) ? 0 : 1);
  return `${shown} ${units[unit]}`;
}
