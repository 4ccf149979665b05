/**
 * The cart: SKU -> quantity, and its id, kept in localStorage so a redirect flow finds it again
 * and every tab of the shop shares it (the id is the plug-in's `reference`: two tabs, one order).
 */
import { findProduct } from '../src/catalog.ts';

export type Cart = Record<string, number>;
export const KEY = 'demo-shop-cart';
export const ID_KEY = 'demo-shop-cart-id';

/** The cart's id, made on first use: 128 random bits. */
export function cartId(): string {
  let id = localStorage.getItem(ID_KEY);
  if (!id || !/^[0-9a-f]{32}$/.test(id)) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
    localStorage.setItem(ID_KEY, id);
  }
  return id;
}

/** A paid cart is done: the next one gets a new id. */
export function newCartId(): string {
  localStorage.removeItem(ID_KEY);
  return cartId();
}

export function loadCart(): Cart {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(
      Object.entries(parsed).filter(([sku, quantity]) => findProduct(sku) && Number.isInteger(quantity) && (quantity as number) > 0),
    ) as Cart;
  } catch {
    return {};
  }
}

export function saveCart(cart: Cart): void {
  localStorage.setItem(KEY, JSON.stringify(cart));
}

/** Display only: the server computes the amount it charges from its own catalogue. */
export function cartTotal(cart: Cart): number {
  return Object.entries(cart).reduce((sum, [sku, quantity]) => sum + (findProduct(sku)?.price ?? 0) * quantity, 0);
}
