'use client';
// The pay button and the outcome it ends in: the element checks every outcome with the server
// before it says so, so `pay-success` means the plug-in has the order as paid.
import type { PaySuccessEvent } from '@tombolbayar/pay-button';
import { useEffect, useRef, useState } from 'react';

export function Checkout({ sku, price }: { sku: string; price: number }) {
  const button = useRef<HTMLElement>(null);
  const [paidOrder, setPaidOrder] = useState<string>();
  useEffect(() => {
    const element = button.current;
    if (!element) return;
    const onSuccess = (event: Event) => setPaidOrder((event as PaySuccessEvent).detail.orderNum);
    element.addEventListener('pay-success', onSuccess);
    return () => element.removeEventListener('pay-success', onSuccess);
  }, []);
  return (
    <>
      <pay-button ref={button} endpoint="/pay" item={sku} amount={price}>
        Bayar
      </pay-button>
      <p id="outcome" role="status">{paidOrder ? `Paid, thank you! Order ${paidOrder} is on its way.` : ''}</p>
    </>
  );
}
