/**
 * A span per database transaction of the order store. Each store method is one transaction (one
 * compare-and-set statement, or a read, committed on its own), so each call of `orders`, `sweep`
 * and `personalData` becomes `db.transaction <store>.<method>`, a child of whatever span is
 * active (the request's, the sweep's). It also counts the calls running, which is the pool state
 * of an SQLite store (one connection: in use or idle).
 */
import { context, failed, SpanKind, trace, tracer } from './tracing.ts';

/** Store calls running right now, across the wrapped stores of one plug-in. */
export interface RunningCalls {
  value: number;
}

/**
 * `target` with each of its class's methods wrapped in a span (the methods run on `target`
 * itself, so a method calling another is one span). A method's result that is not a promise is
 * returned as it is.
 */
export function withTransactionSpans<T extends object>(target: T, what: string, running: RunningCalls): T {
  const traced = Object.create(target) as T;
  const prototype = Object.getPrototypeOf(target) as object;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const method = (target as Record<string, unknown>)[name];
    if (name === 'constructor' || typeof method !== 'function') continue;
    const spanName = `db.transaction ${what}.${name}`;
    Object.defineProperty(traced, name, {
      value: (...args: unknown[]): unknown => {
        const span = tracer().startSpan(spanName, { kind: SpanKind.CLIENT, attributes: { 'db.operation.name': name } });
        running.value += 1;
        let result: unknown;
        try {
          result = context.with(trace.setSpan(context.active(), span), () => method.apply(target, args));
        } catch (error) {
          running.value -= 1;
          failed(span, error);
          span.end();
          throw error;
        }
        if (!(result instanceof Promise)) {
          running.value -= 1;
          span.end();
          return result;
        }
        return result.then(
          (value: unknown) => {
            running.value -= 1;
            span.end();
            return value;
          },
          (error: unknown) => {
            running.value -= 1;
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
