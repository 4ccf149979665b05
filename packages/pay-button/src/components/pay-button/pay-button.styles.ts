import { css, shared } from '../../internal/styles.ts';

/** Styles of `<pay-button>`: the shared button, plus the spinner and the paid look. */
export const styles = [
  shared,
  css`
    :host {
      display: inline-block;
    }
    button {
      display: inline-flex;
      align-items: center;
      justify-content: center;
      gap: 0.5em;
      width: 100%;
    }
    /* Clear of the button's focus ring (3 px, 2 px out) when it says something, such as a pending order's instructions. */
    [part='status']:not(:empty) {
      margin-top: 0.5em;
    }
    [part='spinner'] {
      /* A 1em square (plus its border): the padding of an empty span. */
      padding: 0.5em;
      border: 2px solid;
      border-right-color: #0000;
      border-radius: 50%;
      animation: spin 0.8s linear infinite;
    }
    @keyframes spin {
      to {
        rotate: 1turn;
      }
    }
    /* The boolean form: any preference but no-preference, that is reduce. */
    @media (prefers-reduced-motion) {
      [part='spinner'] {
        animation: none;
      }
    }
  `,
];
