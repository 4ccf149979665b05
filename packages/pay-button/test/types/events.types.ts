/**
 * Compile-time checks, run by `npx tsc -b` (the package's tsconfig includes `test/`; no test runner
 * loads this file): the elements' `emit` and `report` take the detail `PayEventMap` names for the
 * event, so a name and a detail that disagree are a type error, not a surprise for a listener.
 */
import { PayElement } from '../../src/internal/pay-element.ts';

export class EmitProbe extends PayElement<'idle' | 'error'> {
  constructor() {
    super(1000);
  }

  agrees(): void {
    this.emit('pay-click', { item: 'sku', method: undefined }, { cancelable: true });
    this.emit('pay-fallback', { from: 'popup', to: 'redirect', reason: 'popup-blocked' });
    this.report('error', 'pay-error', { code: 'network', retryable: true, message: 'network' });
  }

  disagrees(): void {
    // @ts-expect-error `pay-open`'s detail is no `pay-fallback` detail.
    this.emit('pay-open', { from: 'popup', to: 'redirect', reason: 'popup-blocked' });
    // @ts-expect-error `pay-cancel` needs `orderNum` and `reason`, not an error.
    this.report('error', 'pay-cancel', { code: 'network', retryable: true, message: 'network' });
    // @ts-expect-error `pay-click` is no event that ends an attempt.
    this.report('error', 'pay-click', { item: 'sku', method: undefined });
    // @ts-expect-error no such event.
    this.emit('pay-done', {});
  }
}
