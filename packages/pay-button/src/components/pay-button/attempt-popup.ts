/**
 * The payment window of a `<pay-button>` attempt (a reactive controller): it names the window
 * after its order, watches it close, and hears the return page in it. The window is opened by
 * `openPaymentWindow` inside the click.
 *
 * A reload of the shop while the window is open leaves it orphaned: it goes on (and its opener is
 * still this tab) but the new page holds no handle on it. The next click finds it again by its
 * name (`tombolbayar-<orderNum>`), and its return page is still heard (a message naming the order,
 * from the plug-in's origin), so paying there ends here instead of turning the window into a
 * second copy of the shop.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export interface AttemptPopupHost extends ReactiveControllerHost {
  readonly endpoint: string;
}

export interface ReturnHandlers {
  /** The order whose return page this element hears, if any. */
  awaited(): string | undefined;
  /** The return page of that order spoke, from `popup` (acknowledged already, so it closes). */
  returned(popup: Window): unknown;
}

export class AttemptPopup implements ReactiveController {
  /** The attempt's window: null in the full-page flow, and after a reload (see the module comment). */
  window: Window | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;

  readonly #host: AttemptPopupHost;
  readonly #on: ReturnHandlers;

  constructor(host: AttemptPopupHost, on: ReturnHandlers) {
    this.#host = host;
    this.#on = on;
    host.addController(this);
  }

  hostConnected(): void {
    addEventListener('message', this);
  }

  hostDisconnected(): void {
    removeEventListener('message', this);
  }

  /** Calls `closed` once the window is seen closed (every 400 ms), until `unwatch`. */
  watch(closed: () => void): void {
    const popup = this.window;
    this.unwatch();
    this.#timer = setInterval(() => popup?.closed && closed(), 400);
  }

  unwatch(): void {
    clearInterval(this.#timer);
  }

  /**
   * Sends the window to the payment page of `orderNum`, named after it while it is still our
   * placeholder (a window handed over by another element may be on another origin already).
   */
  send(url: string, orderNum: string): void {
    const popup = this.window!;
    try {
      popup.name = `tombolbayar-${orderNum}`;
    } catch {
      // Its name is only a convenience.
    }
    popup.location.replace(url);
  }

  /** Closing a window that is already closed (or gone) does nothing. */
  close(): void {
    this.window?.close();
  }

  /**
   * The return page's message (see the plug-in's `/return.js`), accepted only for the awaited
   * order, from the plug-in's origin, and from the attempt's window (or, with none known, from the
   * window that says it is that order's: the plug-in is asked for the outcome anyway). It is echoed
   * back as the acknowledgement: the return page closes only once its message arrived (else it
   * continues as a full page).
   * @internal
   */
  handleEvent({ data, origin, source }: MessageEvent): void {
    const orderNum = this.#on.awaited();
    if (!orderNum || data?.type != 'tombolbayar:return' || data.orderNum !== orderNum) return;
    if (origin !== new URL(this.#host.endpoint, location.href).origin || !source || (this.window && source !== this.window)) return;
    const popup = source as Window;
    popup.postMessage(data, origin);
    this.#on.returned(popup);
  }
}
