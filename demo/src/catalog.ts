/**
 * The demo shop's catalogue: the single source of prices. The browser only ever names a SKU and a
 * quantity; `quote` turns them into an amount here, on the server.
 */
export interface Product {
  readonly sku: string;
  readonly name: string;
  /** Short enough for the gateway's 32-character `productDetail`. */
  readonly detail: string;
  readonly price: number;
  readonly icon: 'beans' | 'cup' | 'tea' | 'batik';
}

export const CATALOG: readonly Product[] = [
  { sku: 'kopi-gayo-250', name: 'Kopi Gayo, 250 g', detail: 'Kopi Gayo 250g', price: 85_000, icon: 'beans' },
  { sku: 'kopi-toraja-1kg', name: 'Kopi Toraja, 1 kg', detail: 'Kopi Toraja 1kg', price: 310_000, icon: 'beans' },
  { sku: 'cangkir-keramik', name: 'Ceramic cup from Kasongan', detail: 'Cangkir keramik', price: 45_000, icon: 'cup' },
  { sku: 'teh-melati', name: 'Jasmine tea, 100 g', detail: 'Teh melati 100g', price: 32_500, icon: 'tea' },
  { sku: 'batik-tulis', name: 'Batik tulis shirt', detail: 'Kemeja batik tulis', price: 750_000, icon: 'batik' },
];

export const MAX_QUANTITY = 20;

export function findProduct(sku: string): Product | undefined {
  return CATALOG.find((product) => product.sku === sku);
}
