/**
 * In memory, apart from the stored attempts (`attempt-store.ts`, in the attempt's chunk): an element
 * may leave the page before that chunk is loaded.
 */

/**
 * What an element hands over when it leaves the page mid-attempt (a framework re-rendered it):
 * the attempt's idempotency key and its popup. The next element for
 * the same request (endpoint, item, method, fields) on this page takes it over, so one cart never
 * makes two orders and the detached element says nothing more.
 */
export type Handover = [key: string, popup: Window | null];

/** Handovers by request, in memory: they concern this page only. */
export const handovers = new Map<string, Handover>();
