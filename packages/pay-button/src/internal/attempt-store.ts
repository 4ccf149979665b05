/**
 * Attempts kept in `sessionStorage` (per tab, cleared with it) so the element can pick its order up
 * after the page was left: a full-page redirect to the hosted page and back, a reload during or
 * after a popup attempt, or a reload of a page showing a VA number. Only the order number and its status token are needed; the outcome is
 * always asked from the plug-in. Storage that throws (disabled, full, private mode) just means
 * nothing is remembered.
 */

import { RETURN_PARAM, pickUp, withoutReturnParam, withoutToken, type Via } from './outcome.ts';

const KEY = 'tombolbayar:attempts';
/** A day: longer than any payment window, short enough not to surprise. */
const TTL_MS = 864e5;

export interface StoredAttempt {
  orderNum: string;
  statusToken: string;
  /** `endpoint` attribute of the element that made it. */
  endpoint: string;
  /** `item` attribute of the element that made it. */
  item?: string | undefined;
  /** Epoch ms, set by `saveAttempt`. */
  savedAt?: number;
  /**
   * Idempotency key of the request that made the order, and that request (see `<pay-button>`'s
   * `request`): a click for the same request after a reload reuses it (the same order, never a second one).
   */
  key?: [key: string, request: string] | undefined;
  /** `<pay-va>` keeps its whole VA order so a reload shows the same number. */
  va?: Record<string, unknown>;
}

function read(): StoredAttempt[] {
  try {
    const list = JSON.parse(sessionStorage.getItem(KEY)!) as StoredAttempt[];
    return list.filter((e) => Date.now() - e.savedAt! < TTL_MS);
  } catch {
    return [];
  }
}

function write(list: StoredAttempt[]): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(list.slice(-10)));
  } catch {
    // Nothing to do: see the module comment.
  }
}

/** Remembers an attempt (replacing an older entry for the same order). */
export function saveAttempt(entry: StoredAttempt): void {
  write([...read().filter((e) => e.orderNum !== entry.orderNum), { ...entry, savedAt: Date.now() }]);
}

/** The first stored attempt that matches, without removing it. */
export function findAttempt(match: (e: StoredAttempt) => unknown): StoredAttempt | undefined {
  return read().find(match);
}

/** Removes and returns the first stored attempt that matches, so that exactly one element claims it, once. */
export function claimAttempt(match: (e: StoredAttempt) => unknown): StoredAttempt | undefined {
  const list = read();
  const entry = list.find(match);
  if (entry) write(list.filter((e) => e !== entry));
  return entry;
}

/**
 * On a page load: claims the stored attempt that `match`es and this load is about (see `pickUp`:
 * the return, `?tombolbayar_order=`, the Back button, or a reload); a `match` that takes none claims nothing. The
 * status token comes from sessionStorage only, never from the URL. The address bar is cleaned:
 * every element removes a `#paybutton_token=` fragment (never reading it); only the one that
 * claimed the order removes `tombolbayar_order`, which until then may be another element's; and any
 * element removes one nobody can claim any more (a return replayed by Back/Forward after its order
 * ended), so the parameter is never left behind.
 */
export function claimOnLoad(match: (e: StoredAttempt) => unknown): [StoredAttempt, Via] | undefined {
  const url = new URL(location.href);
  const returned = url.searchParams.get(RETURN_PARAM);
  let via: Via | undefined;
  const entry = claimAttempt((e) => match(e) && (via = pickUp(returned, e.orderNum)));
  const clean = (entry && returned) || (returned && !findAttempt((e) => e.orderNum === returned)) ? withoutReturnParam(url.href) : withoutToken(url.href);
  if (clean !== url.href) history.replaceState(history.state, '', clean);
  return entry && [entry, via!];
}

/** Forgets the attempt of this order. */
export function dropAttempt(orderNum: string | undefined): void {
  claimAttempt((e) => e.orderNum === orderNum);
}

export { handovers, type Handover } from './handovers.ts';
