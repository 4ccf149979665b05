// <pay-button> in JSX: the tag and the attributes this shop uses. The element itself is the
// plug-in's script-tag file, /pay/pay-button.js, loaded by the page.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'pay-button': DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & {
        endpoint: string;
        item: string;
        method?: string;
        amount?: number;
        locale?: string;
      };
    }
  }
}
