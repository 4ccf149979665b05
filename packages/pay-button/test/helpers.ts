/**
 * Helpers for the browser tests: talking to the contract double, recording what an element says,
 * and spying on (never replacing) window.open.
 */
import { waitUntil as openWcWaitUntil } from '@open-wc/testing';

/**
 * open-wc's `waitUntil` with a deadline of 8 s rather than 1 s: it returns as soon as the state
 * holds, and on a loaded machine (the suites run side by side) a state comes later, not never.
 */
export const waitUntil: typeof openWcWaitUntil = (predicate, message, options = {}) => openWcWaitUntil(predicate, message, { timeout: 8000, ...options });

export const EVENTS = ['pay-click', 'pay-open', 'pay-fallback', 'pay-success', 'pay-pending', 'pay-failure', 'pay-cancel', 'pay-error'] as const;
export const TERMINAL = ['pay-success', 'pay-pending', 'pay-failure', 'pay-cancel', 'pay-error'];

/** A unique item name, so tests never share orders or counters. */
export function uniqueItem(prefix = 'sku'): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

export interface Stats {
  links: number;
  va: number;
  gets: number;
  /** Status requests that carried a `?token=` (the element must send none). */
  tokensInUrl: number;
  bodies: Record<string, unknown>[];
  /** The `traceparent` header of each order request, null when it had none. */
  traceparents: (string | null)[];
  orders: { orderNum: string; status: string }[];
}

export async function stats(item: string): Promise<Stats> {
  return (await fetch(`/api/__test/stats?item=${encodeURIComponent(item)}`)).json();
}

/**
 * Sets an order's status on the double, as the gateway's notification would; `shed`: its status
 * requests are answered `503 overloaded` (retryable) until the next call; `paidWith` and
 * `duplicateOf`: another order of the purchase paid it, or had paid it first.
 */
export async function setStatus(
  orderNum: string,
  status: 'pending' | 'paid' | 'expired' | 'failed',
  more: { method?: string | null; confirmed?: boolean; shed?: boolean; paidWith?: string; duplicateOf?: string } = {},
): Promise<void> {
  const res = await fetch(`/api/__test/orders/${encodeURIComponent(orderNum)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status, ...more }),
  });
  if (!res.ok) throw new Error(`setStatus ${res.status}`);
}

export async function release(item: string): Promise<void> {
  await fetch(`/api/__test/release?item=${encodeURIComponent(item)}`, { method: 'POST' });
}

/** Everything an element says: its events (in order) and every state it reflects. */
export class Recorder {
  events: CustomEvent[] = [];
  states: string[] = [];
  #observer: MutationObserver;

  constructor(readonly el: HTMLElement) {
    for (const name of EVENTS) el.addEventListener(name, (e) => this.events.push(e as CustomEvent));
    this.states.push(el.getAttribute('state') ?? '');
    this.#observer = new MutationObserver(() => {
      const state = el.getAttribute('state') ?? '';
      if (this.states.at(-1) !== state) this.states.push(state);
    });
    this.#observer.observe(el, { attributes: true, attributeFilter: ['state'] });
  }

  get names(): string[] {
    return this.events.map((e) => e.type);
  }

  get terminal(): CustomEvent[] {
    return this.events.filter((e) => TERMINAL.includes(e.type));
  }

  of(name: string): CustomEvent | undefined {
    return this.events.find((e) => e.type === name);
  }

  /** Waits until an event of `name` has been recorded, and returns it. */
  async next(name: string, message = `waiting for ${name}`): Promise<CustomEvent> {
    await waitUntil(() => this.of(name), message, { timeout: 8000 });
    return this.of(name)!;
  }

  /** Waits for the attempt's terminal event. */
  async settle(): Promise<CustomEvent> {
    await waitUntil(() => this.terminal.length > 0, `no terminal event (states: ${this.states.join(' > ')})`, { timeout: 8000 });
    return this.terminal[0]!;
  }

  stop(): void {
    this.#observer.disconnect();
  }
}

/** Records the windows window.open returns, while still opening them for real. */
export class OpenSpy {
  windows: (Window | null)[] = [];
  readonly #original = window.open;

  constructor() {
    const spy = this;
    window.open = function (this: Window, ...args: Parameters<typeof window.open>) {
      const w = spy.#original.apply(window, args);
      spy.windows.push(w);
      return w;
    };
  }

  get last(): Window {
    const w = this.windows.at(-1);
    if (!w) throw new Error('no window was opened');
    return w;
  }

  restore(): void {
    window.open = this.#original;
    for (const w of this.windows) w?.close();
  }
}

/** The popup's current URL once it has left about:blank. */
export async function popupUrl(popup: Window): Promise<URL> {
  await waitUntil(() => {
    try {
      return popup.location.href.startsWith('http');
    } catch {
      return false;
    }
  }, 'popup never navigated');
  return new URL(popup.location.href);
}
