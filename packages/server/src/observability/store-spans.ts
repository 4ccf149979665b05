/**
 * A span per database transaction of the order store. Each writing store method is one transaction
 * (a compare-and-set or an insert, committed on its own), so each such call of `orders`, `sweep`
 * and `personalData` becomes `db.transaction <store>.<method>`, a child of whatever span is
 * active (the request's, the sweep's). A method that only reads (one SELECT: `get…`, `list…`,
 * `find`, `…ByPurchase`; `paidOfReference`, `paidInstead` and `duplicateOf`, which write only
 * to claim a purchase's first payment a failed write left unclaimed) is no transaction and gets no span of its own: with an SDK
 * recording, each span costs a request about as much as a small query does (bench/README.md,
 * "Metrics and traces: what they cost"), and a read's time is in its request's span.
 */
import { context, failed, SpanKind, trace, tracer } from './tracing.ts';

/** The store methods that only read. */
const READS = /^(get|list|find|payableBy|paidOf|paidInstead|duplicateOf)/;

/**
 * `target` with each of its class's writing methods wrapped in a span (the methods run on `target`
 * itself, so a method calling another is one span). A method's result that is not a promise is
 * returned as it is.
 */
export function withTransactionSpans<T extends object>(target: T, what: string): T {
  const traced = Object.create(target) as T;
  const prototype = Object.getPrototypeOf(target) as object;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const method = (target as Record<string, unknown>)[name];
    if (name === 'constructor' || typeof method !== 'function' || READS.test(name)) continue;
    const spanName = `db.transaction ${what}.${name}`;
    Object.defineProperty(traced, name, {
      value: (...args: unknown[]): unknown => {
        const span = tracer().startSpan(spanName, { kind: SpanKind.INTERNAL, attributes: { 'db.operation.name': name } });
        let result: unknown;
        try {
          result = context.with(trace.setSpan(context.active(), span), () => method.apply(target, args));
        } catch (error) {
          failed(span, error);
          span.end();
          throw error;
        }
        if (!(result instanceof Promise)) {
          span.end();
          return result;
        }
        return result.then(
          (value: unknown) => {
              span.end();
            return value;
          },
          (error: unknown) => {
              failed(span, error);
            span.end();
            throw error;
          },
        );
      },
    });
  }
  return traced;
}
