/**
 * Loads the attempt's chunk (`attempt-io.ts`, ~1.3 kB gzip beside the script-tag file): an element
 * asks for it after its first render, so it is here by the time of a click; a click before that
 * waits for it after opening the popup (which must happen inside the click, see `pay`).
 */
import { payError } from '../../internal/pay-error.ts';

type AttemptIo = typeof import('./attempt-io.ts');

let loading: Promise<AttemptIo> | undefined;

/** The chunk, once loaded. */
export let attemptIo: AttemptIo | undefined;

/**
 * The chunk, fetched once. A fetch that fails (offline, a server that does not serve the chunk) is
 * the `network` error a request would give, and the next call tries again.
 */
export function loadAttemptIo(): Promise<AttemptIo> {
  return (loading ??= import('./attempt-io.ts').then(
    (io) => (attemptIo = io),
    () => {
      loading = undefined;
      throw payError('network', true);
    },
  ));
}
