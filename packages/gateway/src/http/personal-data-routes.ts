/**
 * The operator API for customers' personal data (UU PDP), on the merchant API's own
 * authentication: `POST /gateway/personalData/export` and `POST /gateway/personalData/erase`, signed
 * with the merchant's key like every `/gateway` request (`authenticate.ts`), and scoped to that
 * merchant's orders. There is no unauthenticated way in: an unsigned, wrongly signed or unknown
 * caller gets the fixed refusals and learns nothing.
 *
 * Request: `merchantCode`, at least one of `email`, `phone`, `orderNum`, `dateTime`, `sign`.
 * Answer (signed): SUCCESS with `orders` (export) or `erased` and `refused` (erase), each a JSON
 * array as text, so `platSign` covers it like any other field; FAIL naming a bad field.
 */
import { dateTimeField, merchantCodeField, signField } from '@tombolbayar/protocol';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { erasePersonalData, exportPersonalData } from '../privacy/personal-data.ts';
import { parsePersonQuery } from '../privacy/query.ts';
import type { GatewayRuntime } from '../runtime.ts';
import { authenticate } from './authenticate.ts';
import { noteRequest } from './request-log.ts';
import { sendRefusal } from './refusals.ts';
import { sendSigned } from './respond.ts';

const optionalText = z.string({ error: 'must be a string' }).optional();

/** The request; the query's own rules (lengths, at least one key) are `privacy/query.ts`'s. */
export const personalDataRequestSchema = z.object(
  { merchantCode: merchantCodeField, email: optionalText, phone: optionalText, orderNum: optionalText, dateTime: dateTimeField, sign: signField },
  { error: 'must be a JSON object' },
);

export function personalDataHandler(runtime: GatewayRuntime, action: 'export' | 'erase') {
  const { database, clock } = runtime.domain;
  return async (req: Request, res: Response) => {
    const auth = await authenticate(database.db, req.body, personalDataRequestSchema);
    if (!auth.ok) return auth.refusal ? sendRefusal(res, runtime.sign, auth.refusal) : sendSigned(res, runtime.sign, auth.code, auth.message);
    const parsed = parsePersonQuery(auth.value);
    if (!parsed.ok) return sendSigned(res, runtime.sign, 'FAIL', `${parsed.field}: ${parsed.message}`);
    const query = { ...parsed.query, merchantCode: auth.merchant.merchantCode };
    if (action === 'export') {
      const orders = await exportPersonalData(database, query);
      noteRequest(res, { message: 'personal data exported', fields: { merchantCode: query.merchantCode, orders: orders.length } });
      return sendSigned(res, runtime.sign, 'SUCCESS', 'success', { orders: JSON.stringify(orders) });
    }
    const report = await erasePersonalData(database, query, clock.now());
    // Never the person's values in the log: only how many orders were touched.
    noteRequest(res, { message: 'personal data erased', fields: { merchantCode: query.merchantCode, erased: report.erased.length, refused: report.refused.length } });
    sendSigned(res, runtime.sign, 'SUCCESS', 'success', { erased: JSON.stringify(report.erased), refused: JSON.stringify(report.refused) });
  };
}
