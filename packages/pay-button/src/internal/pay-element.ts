/**
 * What `<pay-button>` and `<pay-va>` share: the attributes that name the order, a read-only
 * `state` reflected as an attribute and as a custom state, `bubbles` + `composed` events,
 * localized strings, the polite live region, and how an attempt ends (a refusal
 * of the merchant's `quote()` included).
 */
import { LitElement, html, type PropertyDeclarations } from 'lit';
import type { PayEventMap } from '../events.ts';
import { refusal, type PayError } from './pay-error.ts';
import { errorWords, loadStrings, localeOf, strings, watchLang, watched, type Locale, type MessageKey } from './i18n.ts';

/** The detail of event `E`, as `PayEventMap` types it. */
export type PayEventDetail<E extends keyof PayEventMap> = PayEventMap[E]['detail'];

/** The events that end an attempt. */
export type EndEvent = 'pay-success' | 'pay-pending' | 'pay-failure' | 'pay-cancel' | 'pay-error';

export abstract class PayElement<S extends string, K extends string = MessageKey> extends LitElement {
  static override properties: PropertyDeclarations = {
    endpoint: {},
    item: {},
    method: {},
    locale: {},
    disabled: { type: Boolean, reflect: true },
    fields: { attribute: false },
    pollInterval: { type: Number, attribute: 'poll-interval' },
  };

  /** Where the Express plug-in is mounted, e.g. `/pay` (relative to the page, or absolute). */
  declare endpoint: string;
  /** What to buy, as the merchant's `quote` understands it (e.g. a SKU). Never a price. */
  declare item: string | undefined;
  /** Payment method code (`VA_BCA`, `QRIS`, ...) or alias (`BCA`). */
  declare method: string | undefined;
  /** `en` or `id`; when absent, the nearest `[lang]` decides. */
  declare locale: string | undefined;
  declare disabled: boolean;
  /** Extra fields sent with the order request (e.g. `{ quantity: 2 }`); they cannot override the element's own fields. */
  declare fields: Record<string, unknown>;
  /** First delay between two status requests, in ms; it doubles after each pending answer. */
  declare pollInterval: number;

  #state: S;
  #message: K | undefined;
  #note: string | undefined;
  /** The request `quote()` refused, see `done`. */
  #refused: string | undefined;
  /** The custom states (`:state(paid)`), where the browser has them. */
  #states: CustomStateSet | undefined;

  /** Both elements start `idle`; `pollInterval` is the element's default. */
  constructor(pollInterval: number) {
    super();
    this.endpoint = '';
    this.disabled = false;
    this.fields = {};
    this.pollInterval = pollInterval;
    this.#state = 'idle' as S;
    // No ElementInternals (or no custom states) in older browsers: the `state` attribute still works.
    this.#states = this.attachInternals?.().states;
  }

  /** The current state, reflected as the `state` attribute and as a custom state (`:state(paid)`). Read-only. */
  get state(): S {
    return this.#state;
  }

  /**
   * The request an attempt is for (endpoint, item, method, fields: one cart), as JSON. An
   * idempotency key is reused only for the same request: the plug-in refuses a key with another body.
   */
  protected get request(): string {
    return JSON.stringify([this.endpoint, this.item, this.method, this.fields]);
  }

  /**
   * Whether a click has nothing to do: the order is paid, or the merchant's `quote()` refused this
   * very request (see `report`), so asking again cannot succeed until the request changes (another
   * item, method or `fields`) or `reset()`. The button says so with `aria-disabled`.
   */
  protected get done(): boolean {
    return this.state === 'paid' || (this.state === 'error' && this.#refused === this.request);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#reflect();
    watchLang(this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    watched.delete(this);
  }

  /** Moves to `state` (or stays), saying `message` (default: nothing), or else `note` (a text of the merchant's), in the live region. */
  protected setState(state: S, message?: K, note?: string): void {
    this.#state = state;
    this.#message = message;
    this.#note = note;
    this.#reflect();
    this.requestUpdate();
  }

  /**
   * How both elements end an attempt: the state, with its own message, or for a refusal of the
   * merchant's `quote()` (`not_for_sale`, `quote_refused`) the merchant's words and no "try again",
   * then the event. Other failures say what the customer can do, by code (`errorWords`); the code
   * itself stays in the event's detail.
   */
  protected report<E extends EndEvent>(state: S, event: E, detail: PayEventDetail<E>): void {
    const note = refusal(detail as PayError);
    this.#refused = note && this.request;
    const words = state === 'error' ? (errorWords[(detail as PayError).code] ?? 'error') : state;
    this.setState(state, words as unknown as K, note);
    this.emit(event, detail);
  }

  /**
   * Dispatches a `bubbles` + `composed` CustomEvent; false when a cancelable one was cancelled.
   * Its detail is the one `PayEventMap` names for it (type-only: the script-tag budget).
   */
  protected emit<E extends keyof PayEventMap>(name: E, detail: PayEventDetail<E>, init?: Pick<EventInit, 'cancelable'>): boolean {
    return this.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, ...init, detail }));
  }

  protected get currentLocale(): Locale {
    return localeOf(this, this.locale);
  }

  /**
   * The string for `key` in the element's locale (`<pay-va>` adds its own table); in English while
   * the locale's strings are still on their way (see `scheduleUpdate`).
   */
  protected text(key: K): string {
    return ((strings[this.currentLocale] ?? strings.en) as Record<string, string>)[key]!;
  }

  /**
   * An update in a locale whose strings are not loaded yet (see `loadStrings`) waits for them, so
   * an Indonesian page never shows English first: `updateComplete` still resolves once rendered.
   * Otherwise it renders now, as Lit does.
   */
  protected override scheduleUpdate(): void | Promise<unknown> {
    const loading = loadStrings(this.currentLocale);
    return loading ? loading.then(() => super.scheduleUpdate()) : super.scheduleUpdate();
  }

  /** The live region: role `status` is polite (implicit `aria-live=polite`), so it speaks when the screen reader is idle. */
  protected renderStatus() {
    // `text(undefined)` is undefined: nothing to say.
    return html`<span id="status" part="status" role="status">${this.#note ?? this.text(this.#message!)}</span>`;
  }

  /**
   * The state as the `state` attribute (from the first connection on: a constructor may not add
   * attributes) and as a custom state (Chrome 125+, Safari 17.4+, Firefox 126+; older browsers
   * throw on `:state` names or have no `CustomStateSet`: they get the attribute only).
   */
  #reflect(): void {
    this.setAttribute('state', this.#state);
    try {
      this.#states!.clear();
      this.#states!.add(this.#state);
    } catch {
      // The attribute still works.
    }
  }
}
