/**
 * The one state wait of the test suites: ask `check` again every few milliseconds until it
 * answers a value (anything but undefined), and fail naming `what` after `timeoutMs`. The deadline
 * is generous on purpose: on a loaded machine a state comes later, not never, and a test that
 * waits on the state costs no more than the state takes.
 */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
