/** A complete, valid set of `payButton()` options for tests of the options themselves. */
import { join } from 'node:path';
import type { PayButtonOptions } from '../../src/adapters/express.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './keys.ts';

/** Valid options with the store in `dir`; `extra` overrides any of them. */
export function validOptions(dir: string, extra: Partial<PayButtonOptions> = {}): PayButtonOptions {
  return {
    gatewayUrl: 'https://gateway.example',
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    publicUrl: 'https://shop.example',
    database: { kind: 'sqlite', file: join(dir, 'orders.sqlite') },
    quote: () => ({ payMoney: 1000, productDetail: 'x', name: 'y', email: 'a@b.co', phone: '0811' }),
    onPaid: () => {},
    // Tests of the options say nothing to the terminal and ask no gateway at start.
    logger: false,
    selfCheck: false,
    ...extra,
  };
}
