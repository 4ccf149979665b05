import { css, shared } from '../../internal/styles.ts';

/** Styles of `<pay-va>`: the shared buttons, plus the panel: the total first and largest, then the number. */
export const styles = [
  shared,
  css`
    :host {
      display: block;
      overflow-wrap: anywhere;
    }
    [part~='panel'] {
      padding: 1em;
      border: var(--pay-va-border, 1px solid #c8ccd4);
      border-radius: var(--pay-button-radius, 0.5em);
    }
    [part='method'],
    .title {
      font-weight: 600;
    }
    .label {
      margin-top: 0.75em;
      font-size: 0.875em;
    }
    .value {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.25em 0.75em;
    }
    [part='number'],
    [part='total'] {
      font: 600 1.25em ui-monospace, monospace;
      word-break: break-all;
    }
    [part='total'] {
      font-size: 1.5em;
      color: var(--pay-va-accent, #0b5fff);
    }
    [part='qr'] {
      display: block;
      width: min(100%, 264px);
      height: auto;
      margin: 0.5em 0;
    }
    .paid .title {
      color: var(--pay-va-paid, #1e7b34);
    }
    .expired .title,
    .failed .title,
    .closed .title {
      color: var(--pay-va-ended, #a1271b);
    }
    dl {
      display: grid;
      grid-template-columns: auto 1fr;
      gap: 0.25em 1em;
      margin: 0.5em 0 0;
      font-size: 0.875em;
    }
    dd,
    p {
      margin: 0 0 0.75em;
    }
    dd {
      margin: 0;
    }
    [part='countdown'] {
      margin-top: 0.75em;
    }
    ol {
      margin: 0.5em 0 0;
      padding-left: 1.5em;
    }
    summary {
      cursor: pointer;
      font-weight: 600;
    }
  `,
];
