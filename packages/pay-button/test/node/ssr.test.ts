/**
 * Server-side rendering and frameworks: every entry imports in Node without a DOM (Lit's node
 * build), defines its tags once, and the React wrappers pass props and map events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as React from 'react';

test('index has no side effects and imports without a DOM', async () => {
  const index = await import('../../src/index.ts');
  assert.equal(typeof index.PayButton, 'function');
  assert.equal(typeof index.PayVa, 'function');
  assert.equal(globalThis.customElements?.get('pay-button'), undefined);
});

test('define registers both tags, once, even when imported twice', async () => {
  const { PayButton, PayVa } = await import('../../src/define.ts');
  await import('../../src/define.ts');
  assert.equal(customElements.get('pay-button'), PayButton);
  assert.equal(customElements.get('pay-va'), PayVa);
});

test('the React wrappers render the tags and map the pay-* events to onPay* props', async () => {
  const { PayButton, PayVa } = await import('../../src/react.ts');
  assert.equal(PayButton.displayName, 'PayButton');
  assert.equal(PayVa.displayName, 'PayVa');
  let paid = '';
  const element = React.createElement(PayButton, {
    endpoint: '/pay',
    item: 'sku-42',
    mode: 'popup',
    onPaySuccess: (e) => void (paid = e.detail.orderNum),
  });
  assert.equal(element.props.endpoint, '/pay');
  assert.equal(typeof element.props.onPaySuccess, 'function');
  element.props.onPaySuccess!(new CustomEvent('pay-success', { detail: { orderNum: 'A1', status: 'paid', payMoney: '1', method: null } }));
  assert.equal(paid, 'A1');
});
