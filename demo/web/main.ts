/**
 * The demo shop's page: catalogue, cart, the two ways to pay, and the live order list. Prices shown
 * here come from the same catalogue the server prices with; the server never takes them from here.
 */
import { formatRupiah } from '@paybutton/protocol/formats';
import { METHODS, methodsOfKind } from '@paybutton/protocol/methods';
import type { PayButton, PayVa } from '@paybutton/pay-button';
import { CATALOG, MAX_QUANTITY, findProduct } from '../src/catalog.ts';
import { loadCart, saveCart, cartTotal, type Cart } from './cart.ts';
import { watchOrders } from './orders.ts';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const payButton = byId<PayButton>('pay');
const payVa = byId<PayVa>('pay-va');
const bankSelect = byId<HTMLSelectElement>('va-bank');
let cart: Cart = loadCart();

function renderProducts(): void {
  const list = byId<HTMLUListElement>('product-list');
  for (const product of CATALOG) {
    const item = document.createElement('li');
    item.className = 'product';
    const picture = document.createElement('img');
    picture.src = `/icons/${product.icon}.svg`;
    picture.alt = '';
    picture.width = 160;
    picture.height = 96;
    const name = document.createElement('strong');
    name.textContent = product.name;
    const price = document.createElement('span');
    price.className = 'price';
    price.textContent = formatRupiah(product.price);
    const add = document.createElement('button');
    add.type = 'button';
    add.className = 'add';
    add.dataset.sku = product.sku;
    add.textContent = 'Add to cart';
    // The visible words first (WCAG 2.5.3, label in name), then which product.
    add.setAttribute('aria-label', `Add to cart: ${product.name}`);
    add.addEventListener('click', () => changeQuantity(product.sku, 1));
    item.append(picture, name, price, add);
    list.append(item);
  }
}

function changeQuantity(sku: string, delta: number): void {
  const quantity = Math.min(MAX_QUANTITY, Math.max(0, (cart[sku] ?? 0) + delta));
  cart = { ...cart, [sku]: quantity };
  if (quantity === 0) delete cart[sku];
  saveCart(cart);
  renderCart();
  startOver();
}

/**
 * The cart changed: the last attempt's outcome is about another cart, so its message goes, and
 * an element that ended (or shows a number for the old total) starts over. An attempt in flight
 * is left alone: it ends on its own.
 */
function startOver(): void {
  for (const id of ['pay-result', 'va-result']) say(id, '');
  if (!/loading|open|checking/.test(payButton.state)) payButton.reset();
  if (payVa.state !== 'loading') payVa.reset();
}

function renderCart(): void {
  const lines = byId<HTMLUListElement>('cart-lines');
  lines.replaceChildren();
  for (const [sku, quantity] of Object.entries(cart)) {
    const product = findProduct(sku);
    if (!product) continue;
    const line = document.createElement('li');
    const label = document.createElement('span');
    label.textContent = `${product.name} × ${quantity}`;
    const controls = document.createElement('span');
    controls.className = 'qty';
    for (const [text, delta, name] of [['−', -1, 'Remove one'], ['+', 1, 'Add one']] as const) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = text;
      button.setAttribute('aria-label', `${name} ${product.name}`);
      button.addEventListener('click', () => changeQuantity(sku, delta));
      controls.append(button);
    }
    line.append(label, controls);
    lines.append(line);
  }
  const total = cartTotal(cart);
  byId('cart-empty').hidden = total > 0;
  byId('cart-total').textContent = formatRupiah(total);
  const fields = { cart: Object.entries(cart).map(([sku, quantity]) => ({ sku, quantity })) };
  for (const element of [payButton, payVa]) {
    element.fields = fields;
    element.disabled = total === 0;
  }
  payButton.amount = total > 0 ? total : undefined;
}

function say(id: string, text: string): void {
  byId(id).textContent = text;
}

/**
 * One message per attempt: the element speaks while the attempt runs (its own status line), and
 * the page says the outcome once, here (the element's status line is hidden once it ended, see
 * styles.css). A new attempt clears it; so does a change of the cart.
 */
function wireOutcomes(element: PayButton | PayVa, resultId: string): void {
  element.addEventListener('pay-click', () => say(resultId, ''));
  element.addEventListener('pay-success', (event) => {
    // <pay-va>'s paid panel already says it, in place of the number.
    if (element === payButton) say(resultId, `Paid: order ${event.detail.orderNum}. We are packing it.`);
    // Emptied by the payment itself: the outcome message stays until the customer shops again.
    cart = {};
    saveCart(cart);
    renderCart();
  });
  element.addEventListener('pay-pending', (event) =>
    say(resultId, `Order ${event.detail.orderNum} awaits payment. This page updates when it arrives.`),
  );
  element.addEventListener('pay-failure', (event) => say(resultId, `Order ${event.detail.orderNum} ${event.detail.status}.`));
  element.addEventListener('pay-cancel', () => say(resultId, 'Payment cancelled. Your cart is still here.'));
  element.addEventListener('pay-error', (event) =>
    say(resultId, event.detail.code === 'not_for_sale' ? event.detail.message : `Could not pay: ${event.detail.message}`),
  );
}

function renderBanks(): void {
  for (const method of [...methodsOfKind('virtual-account'), METHODS.QRIS, ...methodsOfKind('retail'), ...methodsOfKind('e-wallet')]) {
    const option = document.createElement('option');
    option.value = method.code;
    option.textContent = method.displayName;
    bankSelect.append(option);
  }
  bankSelect.addEventListener('change', () => {
    payVa.method = bankSelect.value;
  });
}

for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) {
  radio.addEventListener('change', () => {
    if (radio.checked) payButton.mode = radio.value as PayButton['mode'];
  });
}

renderProducts();
renderBanks();
renderCart();
wireOutcomes(payButton, 'pay-result');
wireOutcomes(payVa, 'va-result');
watchOrders(byId<HTMLTableSectionElement>('order-rows'));
