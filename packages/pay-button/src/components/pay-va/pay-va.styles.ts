import { css, shared } from '../../internal/styles.ts';

/** Styles of `<pay-va>`: the shared buttons, plus the panel with the number. */
export const styles = [
  shared,
  css`
    :host {
      display: block;
    }
    [part='panel'] {
      padding: 1em;
      border: var(--pay-va-border, 1px solid #c8ccd4);
      border-radius: var(--pay-button-radius, 0.5em);
    }
    [part='method'] {
      font-weight: 600;
    }
    [part='number'] {
      display: inline-block;
      margin: 0.25em 0.5em 0.75em 0;
      font: 600 1.25em ui-monospace, monospace;
      word-break: break-all;
    }
    dl {
      display: grid;
      grid-template-columns: auto 1fr;
      gap: 0.25em 1em;
    }
    dd,
    dl,
    p {
      margin: 0 0 0.75em;
    }
  `,
];
