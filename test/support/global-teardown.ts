export default async function globalTeardown(): Promise<void> {
  await (globalThis as { tollgateTestServer?: { stop(): Promise<void> } }).tollgateTestServer?.stop();
}
