/**
 * What `<pay-button>` and `<pay-va>` share: the attributes that name the order, a read-only
 * `state` reflected as an attribute and as a custom state, `bubbles` + `composed` events,
 * localized strings, and the polite live region.
 */
import { LitElement, html, type PropertyDeclarations } from 'lit';
import { localeOf, strings, watchLang, type Locale, type MessageKey, type Strings } from './i18n.ts';

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

  /** The element's strings, per locale. */
  static strings: Strings<string> = strings;

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
  #internals: ElementInternals | undefined;

  constructor(initial: S, pollInterval: number) {
    super();
    this.endpoint = '';
    this.disabled = false;
    this.fields = {};
    this.pollInterval = pollInterval;
    this.#state = initial;
    try {
      this.#internals = this.attachInternals();
    } catch {
      // No ElementInternals here: the `state` attribute still works.
    }
    this.#mirror('', initial);
  }

  /** The current state, reflected as the `state` attribute and as a custom state (`:state(paid)`). Read-only. */
  get state(): S {
    return this.#state;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.setAttribute('state', this.#state);
    watchLang(this, true);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    watchLang(this, false);
  }

  /** Moves to `state` (or stays), saying `message` (default: nothing), or else `note` (a text of the merchant's), in the live region. */
  protected setState(state: S, message?: K, note?: string): void {
    this.#mirror(this.#state, state);
    this.#state = state;
    this.#message = message;
    this.#note = note;
    this.setAttribute('state', state);
    this.requestUpdate();
  }

  /** Dispatches a `bubbles` + `composed` CustomEvent; false when a cancelable one was cancelled. */
  protected emit(name: string, detail: unknown, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }));
  }

  protected get currentLocale(): Locale {
    return localeOf(this, this.locale);
  }

  /** The string for `key` in the element's locale. */
  protected text(key: K): string {
    return (this.constructor as typeof PayElement).strings[this.currentLocale][key]!;
  }

  /** The live region: role `status` is polite (implicit `aria-live=polite`), so it speaks when the screen reader is idle. */
  protected renderStatus() {
    return html`<span part="status" role="status">${this.#note ?? (this.#message && this.text(this.#message))}</span>`;
  }

  /**
   * Custom states (Chrome 125+, Safari 17.4+, Firefox 126+). Older browsers throw on `:state`
   * names or have no `CustomStateSet`: they get the `state` attribute only.
   */
  #mirror(previous: string, next: string): void {
    try {
      this.#internals!.states.delete(previous);
      this.#internals!.states.add(next);
    } catch {
      // The attribute still works.
    }
  }
}
