/** The cart: SKU -> quantity, kept in localStorage so a redirect flow finds it again. */
import { findProduct } from '../src/catalog.ts';

export type Cart = Record<string, number>;
const KEY = 'demo-shop-cart';

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
