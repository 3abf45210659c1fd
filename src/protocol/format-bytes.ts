/**
 * A size a person (or a model) reads at a glance, with the exact count beside it: `3 MiB (3,145,728 bytes)`,
 * `256 KiB (262,144 bytes)`, `512 bytes`.
 */
export function formatBytes(bytes: number): string {
  const grouped = bytes.toLocaleString('en-US');
  if (bytes >= 1024 * 1024) return `${roundTenth(bytes / (1024 * 1024))} MiB (${grouped} bytes)`;
  if (bytes >= 1024) return `${roundTenth(bytes / 1024)} KiB (${grouped} bytes)`;
  return `${grouped} bytes`;
}

function roundTenth(value: number): string {
  return String(Math.round(value * 10) / 10);
}
