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
    [part='spinner'] {
      width: 1em;
      height: 1em;
      border: 2px solid;
      border-right-color: transparent;
      border-radius: 50%;
      animation: spin 0.8s linear infinite;
    }
    @keyframes spin {
      to {
        transform: rotate(1turn);
      }
    }
    @media (prefers-reduced-motion: reduce) {
      [part='spinner'] {
        animation: none;
      }
    }
  `,
];
