/**
 * React wrappers (`@lit/react`): `<PayButton endpoint="/pay" item="sku-42" onPaySuccess={...} />`.
 * Importing this module defines the tags. Props are set as element properties, so `fields`
 * takes an object; events map to `onPay*` props.
 */
import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
import { PayButton as PayButtonElement, PayVa as PayVaElement } from './define.ts';
import type {
  PayCancelEvent,
  PayClickEvent,
  PayErrorEvent,
  PayFailureEvent,
  PayFallbackEvent,
  PayOpenEvent,
  PayPendingEvent,
  PaySuccessEvent,
} from './events.ts';

const events = {
  onPayClick: 'pay-click' as EventName<PayClickEvent>,
  onPayOpen: 'pay-open' as EventName<PayOpenEvent>,
  onPayFallback: 'pay-fallback' as EventName<PayFallbackEvent>,
  onPaySuccess: 'pay-success' as EventName<PaySuccessEvent>,
  onPayPending: 'pay-pending' as EventName<PayPendingEvent>,
  onPayFailure: 'pay-failure' as EventName<PayFailureEvent>,
  onPayCancel: 'pay-cancel' as EventName<PayCancelEvent>,
  onPayError: 'pay-error' as EventName<PayErrorEvent>,
};

export const PayButton = createComponent({
  tagName: 'pay-button',
  elementClass: PayButtonElement,
  react: React,
  events,
  displayName: 'PayButton',
});

export const PayVa = createComponent({
  tagName: 'pay-va',
  elementClass: PayVaElement,
  react: React,
  events: {
    onPayClick: events.onPayClick,
    onPayOpen: events.onPayOpen,
    onPaySuccess: events.onPaySuccess,
    onPayFailure: events.onPayFailure,
    onPayError: events.onPayError,
  },
  displayName: 'PayVa',
});
