import { findProduct } from '../lib/catalogue';
import { Checkout } from './checkout';

export default function Shop() {
  const product = findProduct('kopi-gayo-250')!;
  return (
    <main>
      {/* The element, served by the plug-in's route (app/pay/[...path]/route.ts). */}
      <script type="module" src="/pay/pay-button.js" async />
      <h1>Toko Kopi</h1>
      <p>
        {product.name}: Rp {product.price.toLocaleString('id-ID')}
      </p>
      <Checkout sku={product.sku} price={product.price} />
    </main>
  );
}
