/** A forked signer of `sign-pool.ts`: signs the field maps it is sent, answers the JSON bodies, exits. */
import { sign, toPrivateKey, type SignableFields } from '@tombolbayar/protocol/node';

process.once('message', (message: { fieldMaps: SignableFields[]; privateKeyPem: string }) => {
  const key = toPrivateKey(message.privateKeyPem);
  const bodies = message.fieldMaps.map((fields) => JSON.stringify({ ...fields, sign: sign(fields, key) }));
  process.send!(bodies, () => process.disconnect());
});
