import { unsafeCSS, type CSSResult } from 'lit';

/**
 * A `css` tag for static style sheets. Our styles never interpolate anything, so Lit's own `css`
 * (whose value checks cost bytes in the script-tag file) is not needed; this one takes the
 * literal text as it is.
 */
export const css = (text: TemplateStringsArray): CSSResult => unsafeCSS(text[0]);

/**
 * Styles both elements share: the page's font, buttons themed by the same `--pay-button-*`
 * custom properties (one theme for `<pay-button>` and `<pay-va>`), a 44 px target, a visible
 * focus ring, and the status line.
 */
export const shared = css`
  :host([hidden]) {
    display: none;
  }
  button {
    font: inherit;
    font-weight: var(--pay-button-font-weight, 600);
    min-width: 44px;
    min-height: var(--pay-button-height, 44px);
    padding: var(--pay-button-padding, 0.5em 1.25em);
    border: var(--pay-button-border, 0);
    border-radius: var(--pay-button-radius, 0.5em);
    background: var(--pay-button-bg, #0b5fff);
    color: var(--pay-button-fg, #fff);
    cursor: pointer;
  }
  button:hover {
    filter: brightness(0.9);
  }
  button:focus-visible {
    outline: var(--pay-button-focus-ring, 3px solid #0b5fff);
    outline-offset: 2px;
  }
  button:disabled {
    cursor: not-allowed;
    opacity: 0.6;
  }
  [part='status'] {
    display: block;
    font-size: 0.875em;
  }
`;
