/** The shop's prices: the only place they come from (the page names an item, never a price). */
export interface Product {
  readonly sku: string;
  readonly name: string;
  readonly price: number;
}

export const CATALOGUE: readonly Product[] = [{ sku: 'kopi-gayo-250', name: 'Kopi Gayo 250g', price: 150_000 }];

export function findProduct(sku: string | undefined): Product | undefined {
  return CATALOGUE.find((product) => product.sku === sku);
}
