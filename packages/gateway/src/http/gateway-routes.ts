/**
 * The merchant API: `POST /gateway/pay` (Create VA, spec 2.1/2.2), `POST /gateway/prepaidOrder`
 * (Create Payment Link, spec 2.3), `POST /gateway/query`, and the personal-data operator API
 * (`/gateway/personalData/export|erase`, our addition). Every answer is HTTP 200
 * with a signed body, except an internal fault (HTTP 500, ERROR).
 */
import {
  createPaymentLinkRequestSchema,
  createVaRequestSchema,
  formatDateTime,
  queryRequestSchema,
  toRupiahString,
  type CreatePaymentLinkRequest,
  type CreateVaRequest,
} from '@tombolbayar/protocol';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { createOrder, type CreateOrderInput } from '../domain/create-order.ts';
import { DomainError } from '../domain/errors.ts';
import type { CreateAnswer } from '../domain/hooks.ts';
import { readOrder, withExpiryApplied } from '../domain/transitions.ts';
import type { Merchant, Order, OrderKind } from '../domain/types.ts';
import { findOrderByOrderNum } from '../store/orders.ts';
import { paymentLinkUrl, type GatewayRuntime } from '../runtime.ts';
import { authenticate } from './authenticate.ts';
import { jsonBody, methodNotAllowed, requireBody, requireJson } from './edges.ts';
import { sendRefusal } from './refusals.ts';
import { personalDataHandler } from './personal-data-routes.ts';
import { noteRequest } from './request-log.ts';
import { sendSigned } from './respond.ts';

const SUCCESS_MESSAGE = 'success';

function toCreateInput(kind: OrderKind, merchant: Merchant, request: CreateVaRequest | CreatePaymentLinkRequest): CreateOrderInput {
  return {
    kind,
    merchant,
    orderNum: request.orderNum,
    method: request.method ?? null,
    payMoney: Number(request.payMoney),
    productDetail: request.productDetail,
    name: request.name,
    email: request.email,
    phone: request.phone,
    notifyUrl: request.notifyUrl,
    redirectUrl: 'redirectUrl' in request ? (request.redirectUrl ?? null) : null,
    expiryPeriod: Number(request.expiryPeriod),
    requestDateTime: request.dateTime,
  };
}

/** The fields of a successful create, per endpoint (spec 2.2 and 2.3). */
function createdFields(runtime: GatewayRuntime, req: Request, order: Order): Record<string, string | null> {
  const common = { platOrderNum: order.platOrderNum, orderNum: order.orderNum, name: order.name, email: order.email, payMoney: toRupiahString(order.payMoney) };
  if (order.kind === 'link') return { ...common, url: paymentLinkUrl(runtime.publicBaseUrl(req), order.platOrderNum) };
  return {
    ...common,
    method: order.method,
    vaNumber: order.vaNumber,
    payFee: order.payFee === null ? null : toRupiahString(order.payFee),
    productDetail: order.productDetail,
  };
}

function createHandler(runtime: GatewayRuntime, kind: OrderKind) {
  const schema = kind === 'va' ? createVaRequestSchema : createPaymentLinkRequestSchema;
  return async (req: Request, res: Response) => {
    const auth = await authenticate(runtime.domain.database.db, req.body, schema);
    if (!auth.ok) return auth.refusal ? sendRefusal(res, runtime.sign, auth.refusal) : sendSigned(res, runtime.sign, auth.code, auth.message);
    const input = toCreateInput(kind, auth.merchant, auth.value);
    let answer: CreateAnswer;
    try {
      // The gateway's create hook (domain/hooks.ts): in production, create and answer.
      answer = await runtime.domain.hooks.aroundCreate(runtime.domain.database.db, { merchantCode: auth.merchant.merchantCode, orderNum: input.orderNum }, async () => {
        const order = await createOrder(runtime.domain, input);
        noteRequest(res, {
          message: 'order created',
          fields: { platOrderNum: order.platOrderNum, orderNum: order.orderNum, merchantCode: order.merchantCode, kind, paymentMethod: order.method },
        });
        return order;
      });
    } catch (error) {
      if (error instanceof DomainError) return sendSigned(res, runtime.sign, 'FAIL', error.message);
      throw error;
    }
    if (answer.kind === 'unknown') return sendSigned(res, runtime.sign, 'UNKNOWN', answer.message);
    sendSigned(res, runtime.sign, 'SUCCESS', SUCCESS_MESSAGE, createdFields(runtime, req, answer.order));
  };
}

/** The order as `/gateway/query` reports it (the protocol's querySuccessSchema). */
function queryFields(runtime: GatewayRuntime, req: Request, order: Order): Record<string, string | null> {
  return {
    platOrderNum: order.platOrderNum,
    orderNum: order.orderNum,
    status: order.status,
    method: order.method,
    name: order.name,
    email: order.email,
    payMoney: toRupiahString(order.payMoney),
    payFee: order.payFee === null ? null : toRupiahString(order.payFee),
    productDetail: order.productDetail,
    vaNumber: order.vaNumber,
    url: order.kind === 'link' ? paymentLinkUrl(runtime.publicBaseUrl(req), order.platOrderNum) : null,
    createTime: formatDateTime(order.createdAt),
    expireTime: formatDateTime(order.expiresAt),
    paidTime: order.paidAt === null ? null : formatDateTime(order.paidAt),
  };
}

function queryHandler(runtime: GatewayRuntime) {
  return async (req: Request, res: Response) => {
    const auth = await authenticate(runtime.domain.database.db, req.body, queryRequestSchema);
    if (!auth.ok) return auth.refusal ? sendRefusal(res, runtime.sign, auth.refusal) : sendSigned(res, runtime.sign, auth.code, auth.message);
    const { orderNum, platOrderNum } = auth.value;
    const merchantCode = auth.merchant.merchantCode;
    let order: Order | undefined;
    if (platOrderNum !== undefined) {
      order = await readOrder(runtime.domain, platOrderNum);
      // Another merchant's order, or a mismatching pair, does not exist for this caller.
      if (order && (order.merchantCode !== merchantCode || (orderNum !== undefined && order.orderNum !== orderNum))) order = undefined;
    } else if (orderNum !== undefined) {
      const found = await findOrderByOrderNum(runtime.domain.database.db, merchantCode, orderNum);
      order = found ? await withExpiryApplied(runtime.domain, found) : undefined;
    }
    if (!order) return sendSigned(res, runtime.sign, 'NOTEXIST', 'no order with this orderNum/platOrderNum for this merchant');
    sendSigned(res, runtime.sign, 'SUCCESS', SUCCESS_MESSAGE, queryFields(runtime, req, order));
  };
}

/** Each signed route's chain (edge checks, then the handler), by its path under `/gateway`. */
export function gatewayRoutes(runtime: GatewayRuntime): ReadonlyMap<string, readonly RequestHandler[]> {
  const parse = [requireJson(runtime.sign, { bodyRequired: true }), requireBody(runtime.sign), ...jsonBody(runtime.sign)];
  return new Map<string, readonly RequestHandler[]>([
    ['/pay', [...parse, createHandler(runtime, 'va')]],
    ['/prepaidOrder', [...parse, createHandler(runtime, 'link')]],
    ['/query', [...parse, queryHandler(runtime)]],
    // Customers' personal data, for the merchant's operators (personal-data-routes.ts).
    ['/personalData/export', [...parse, personalDataHandler(runtime, 'export')]],
    ['/personalData/erase', [...parse, personalDataHandler(runtime, 'erase')]],
  ]);
}

/** The routes mounted at `/gateway`; a known path asked with another method is 405. */
export function gatewayRouter(runtime: GatewayRuntime, routes = gatewayRoutes(runtime)): Router {
  const router = express.Router();
  for (const [path, chain] of routes) router.post(path, ...chain);
  for (const path of routes.keys()) router.all(path, methodNotAllowed(runtime.sign, 'POST'));
  return router;
}
