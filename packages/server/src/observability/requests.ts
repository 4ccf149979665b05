/**
 * What the request path tells observability: each answered request (its route, outcome and
 * latency) and each request shed by admission. The metrics (`metrics.ts`) listen here; without
 * `metrics`, nobody does and nothing is measured.
 */
/** A route of the plug-in as a metric label (low cardinality: never a path with an order number). */
export type RouteLabel = 'links' | 'va' | 'status' | 'notify' | 'return' | 'script' | 'other';

/** How a request ended, as a metric label. */
export type RequestOutcome = '2xx' | '3xx' | '4xx' | '5xx' | 'shed';

export interface RequestObserver {
  /** A request of the plug-in answered (or shed), after `seconds`. */
  answered(route: RouteLabel, outcome: RequestOutcome, seconds: number): void;
  /** A request refused by admission before any work (`in_flight`, `event_loop`, `per_client`, `reading`). */
  shed(reason: string): void;
}

/** The class of an HTTP status (`0`, a client gone before it was answered, counts as `5xx`). */
export function outcomeOf(status: number): RequestOutcome {
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  return '5xx';
}
