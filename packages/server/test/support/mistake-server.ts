/**
 * A merchant's server as the README writes it, default logger and start-up check included, run in
 * a child process by `merchant-mistakes.test.ts` with one mistake at a time (`MISTAKE_SERVER`
 * holds its settings). It prints `shop on URL` when it listens, like the README's server; its
 * standard output is what the merchant would read in the terminal.
 */
import express from 'express';
import { NotForSaleError, payButton } from '../../src/adapters/express.ts';

export interface MistakeServerConfig {
  readonly gatewayUrl: string;
  readonly merchantCode: string;
  readonly privateKey: string;
  readonly platformPublicKey: string;
  readonly databaseFile: string;
  /** Where the app mounts the router (the README: `/pay`). */
  readonly mountAt: string;
  readonly mountPath?: string;
  readonly quoteThrows?: boolean;
  readonly onPaidThrows?: boolean;
}

const config = JSON.parse(process.env.MISTAKE_SERVER ?? '') as MistakeServerConfig;
const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  const publicUrl = `http://127.0.0.1:${port}`;
  app.use(config.mountAt, payButton({
    gatewayUrl: config.gatewayUrl,
    merchantCode: config.merchantCode,
    privateKey: config.privateKey,
    platformPublicKey: config.platformPublicKey,
    publicUrl,
    ...(config.mountPath ? { mountPath: config.mountPath } : {}),
    database: { kind: 'sqlite', file: config.databaseFile },
    quote: (_req, body) => {
      if (config.quoteThrows) throw new TypeError("Cannot read properties of undefined (reading 'price')");
      if (body.item !== 'kopi') throw new NotForSaleError('We do not sell that.');
      return { payMoney: 150_000, productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
    },
    onPaid: () => {
      if (config.onPaidThrows) throw new Error('the warehouse API answered 502');
    },
  }));
  console.log(`shop on ${publicUrl}`);
});
