/**
 * Polls `fn` until it answers true, or fails after `timeoutMs` naming `what`.
 * The one way tests wait for something another process, a worker or a timer
 * makes happen: no test sleeps a fixed time and then looks.
 */
export async function eventually(
  fn: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
