/**
 * The demo shop's page: catalogue, cart, the two ways to pay, and the live order list. Prices shown
 * here come from the same catalogue the server prices with; the server never takes them from here.
 */
import { formatRupiah } from '@tombolbayar/protocol/formats';
import { METHODS, methodsOfKind } from '@tombolbayar/protocol/methods';
import type { PayButton, PayVa } from '@tombolbayar/pay-button';
import { CATALOG, MAX_QUANTITY, findProduct } from '../src/catalog.ts';
import { loadCart, saveCart, cartTotal, cartId, newCartId, ID_KEY, KEY as CART_KEY, type Cart } from './cart.ts';
import { watchOrders } from './orders.ts';
import { wireOutcomes } from './outcomes.ts';
import { applyLang, pageLang, t, type Lang } from './words.ts';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const payButton = byId<PayButton>('pay');
const payVa = byId<PayVa>('pay-va');
const bankSelect = byId<HTMLSelectElement>('va-bank');
let cart: Cart = loadCart();
/** The id of the cart this page shows (and sends): other tabs may have moved on since. */
let shownCartId = cartId();
/** Every cart id this tab showed: a payment message may arrive after the new cart already did. */
const shownCartIds = new Set([shownCartId]);
/** The shop's tabs tell each other about payments (a tab that paid, the others show it). */
const tabs = typeof BroadcastChannel === 'function' ? new BroadcastChannel('demo-shop') : undefined;

function renderProducts(): void {
  const list = byId<HTMLUListElement>('product-list');
  list.replaceChildren();
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
    add.textContent = t('addToCart');
    // The visible words first (WCAG 2.5.3, label in name), then which product.
    add.setAttribute('aria-label', `${t('addToCart')}: ${product.name}`);
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
  // The last outcome was about another cart (see outcomes.ts).
  for (const outcomes of [buttonOutcomes, vaOutcomes]) outcomes.cartChanged();
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
    for (const [text, delta, name] of [['−', -1, t('removeOne')], ['+', 1, t('addOne')]] as const) {
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
  shownCartIds.add((shownCartId = cartId()));
  const fields = { cart: Object.entries(cart).map(([sku, quantity]) => ({ sku, quantity })), cartId: shownCartId };
  for (const element of [payButton, payVa]) {
    element.fields = fields;
    element.disabled = total === 0;
  }
  payButton.amount = total > 0 ? total : undefined;
}

/** The cart as an order is for it: its lines in a fixed order. */
const cartKey = () => JSON.stringify(Object.entries(cart).sort());

/** Orders this tab paid (its payment page or number): it says "Paid", never "in another tab". */
const paidHere = new Set<string>();
/** Orders this tab said paid, having only seen the payment (watching): another tab's "I paid it" corrects that. */
const seenPaid = new Set<string>();
/**
 * Orders another tab said paid the cart this tab shows: that tab emptied the shared cart, so when
 * this tab's own outcome for one of them comes, it is still the cart it was for (not an earlier one).
 */
const paidThisCart = new Set<string>();
/** The order `<pay-button>` last said is pending (its popup closed before the payment was known): it watches it. */
let buttonPending: string | undefined;
payButton.addEventListener('pay-pending', (event) => (buttonPending = event.detail.orderNum));
/** The order a full-page return came back for: read now, before the element tidies the address. */
const returned = new URL(location.href).searchParams.get('tombolbayar_order');

/** The payment emptied the cart: the outcome message stays until the customer shops again. */
function emptyCart(orderNum?: string, here = false): void {
  // The other tabs of this cart show the payment too (see the 'message' listener below).
  if (orderNum) {
    (here ? paidHere : seenPaid).add(orderNum);
    tabs?.postMessage({ type: 'paid', orderNum, cartId: shownCartId, here });
  }
  cart = {};
  saveCart(cart);
  newCartId();
  renderCart();
}

/** An order of an earlier content of this cart was paid: the cart as it is now goes on under a new id. */
function renewCartId(): void {
  newCartId();
  renderCart();
}

/** Another tab paid the cart this one shows: say so here, and show the (now empty) cart. */
tabs?.addEventListener('message', (event: MessageEvent<{ type?: string; orderNum?: string; cartId?: string; here?: boolean }>) => {
  const { type, orderNum, cartId: paidCart, here } = event.data ?? {};
  if (type !== 'paid' || typeof orderNum !== 'string' || !shownCartIds.has(paidCart ?? '')) return;
  paidThisCart.add(orderNum);
  // This tab paid it: it says "Paid", whatever the others saw.
  if (paidHere.has(orderNum)) return;
  // The other tab only saw it paid: this tab's open payment page, or its own watch of that very
  // order after the page closed (its own outcome is on the way), or its own "Paid" stays. (Two
  // payment pages open on one order: the first to hear it paid it.)
  const watchingIt = payButton.state === 'pending' && buttonPending === orderNum;
  if (!here && (seenPaid.has(orderNum) || watchingIt || /^(loading|open|checking)$/.test(payButton.state))) return;
  // An attempt of this tab for that cart is over: nothing is left to pay. A number showing this
  // very order stays: its own status check turns it into the paid panel.
  if (payButton.state !== 'paid') payButton.reset();
  if (payVa.state !== 'paid' && payVa.order?.orderNum !== orderNum) payVa.reset();
  byId('pay-result').textContent = t('paidOtherTab', { order: orderNum });
  cart = loadCart();
  renderCart();
});

/** The cart changed in another tab (localStorage): show it here too. */
window.addEventListener('storage', (event) => {
  if (event.key !== CART_KEY && event.key !== ID_KEY) return;
  cart = loadCart();
  renderCart();
});

const buttonOutcomes = wireOutcomes(payButton, byId('pay-result'), {
  cart: cartKey,
  paidThisCart: (orderNum) => paidThisCart.has(orderNum),
  paid: emptyCart,
  spent: renewCartId,
  returned,
  stillOpen: (orderNum) => [t('stillOpen', { order: orderNum })],
});

const vaOutcomes = wireOutcomes(payVa, byId('va-result'), {
  cart: cartKey,
  paidThisCart: (orderNum) => paidThisCart.has(orderNum),
  paid: emptyCart,
  spent: renewCartId,
  stillOpen: (orderNum) => {
    // The number stays (money may be on its way); a new one for the new cart is one click away.
    const again = document.createElement('button');
    again.type = 'button';
    again.className = 'again';
    again.textContent = t('vaAgain');
    again.addEventListener('click', () => {
      payVa.reset();
      payVa.create();
    });
    return [t('vaStillOpen', { order: orderNum }), again];
  },
});

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
  // A reload shows the number it showed, with its method: the select follows, and the number is
  // in view. The element may have restored it before this script ran, hence the check at start.
  const showRestored = (): void => {
    if (payVa.method) bankSelect.value = payVa.method;
    payVa.closest('details')?.setAttribute('open', '');
  };
  payVa.addEventListener('pay-open', (event) => event.detail.restored && showRestored());
  if (payVa.order) showRestored();
}

for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) {
  radio.addEventListener('change', () => {
    if (radio.checked) payButton.mode = radio.value as PayButton['mode'];
  });
}

// The page's language first: every word below, and the elements (they follow `<html lang>`).
const langSelect = byId<HTMLSelectElement>('lang');
applyLang((langSelect.value = pageLang()));
renderProducts();
renderBanks();
renderCart();
const redrawOrders = watchOrders(byId<HTMLTableSectionElement>('order-rows'));
// A method chosen (a number to pay, with its fee) moves no order, so the stream says nothing: ask again.
for (const element of [payButton, payVa]) element.addEventListener('pay-pending', () => redrawOrders());
langSelect.addEventListener('change', () => {
  applyLang(langSelect.value as Lang);
  renderProducts();
  renderCart();
  redrawOrders();
});
