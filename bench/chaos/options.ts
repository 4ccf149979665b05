/**
 * The chaos run's command line (pure, so a mistake is named before anything starts):
 *
 *   npm run chaos -- [--engines sqlite,postgres] [--seconds 20 | --payments N] [--rate 20]
 *                    [--gateway-port P] [--shop-port P] [--lost-share 0.2]
 */
export type Engine = 'sqlite' | 'postgres';

export interface ChaosOptions {
  readonly engines: Engine[] | undefined;
  /** Run for this long (the default, 20 s), unless `payments` is given. */
  readonly seconds: number;
  /** Run until this many payments are made at the gateway; the faults are spread over them. */
  readonly payments: number | undefined;
  /** Fixed ports (default: free ones). */
  readonly gatewayPort: number | undefined;
  readonly shopPort: number | undefined;
  /** The share of orders whose every notification is lost (the sweep must find them). */
  readonly lostShare: number;
  /**
   * Payment links a second the customers start at most (default 20, the pace of the 12,016-payment
   * reference run): the load a shop sustains, so a backlog is the faults' doing, not the load's.
   */
  readonly rate: number;
}

export const USAGE = 'npm run chaos -- [--engines sqlite,postgres] [--seconds 20 | --payments N] [--rate 20] [--gateway-port P] [--shop-port P] [--lost-share 0.2]';

export function parseChaosArgs(argv: readonly string[]): ChaosOptions {
  const options = { engines: undefined as Engine[] | undefined, seconds: 20, payments: undefined as number | undefined, gatewayPort: undefined as number | undefined, shopPort: undefined as number | undefined, lostShare: 0.2, rate: 20 };
  const number = (name: string, value: string | undefined, check: (n: number) => boolean, what: string): number => {
    const parsed = Number(value);
    if (value === undefined || !Number.isFinite(parsed) || !check(parsed)) throw new Error(`${name}: must be ${what} (got ${value ?? 'nothing'}): ${USAGE}`);
    return parsed;
  };
  const port = (name: string, value: string | undefined) => number(name, value, (n) => Number.isInteger(n) && n >= 1 && n <= 65_535, 'a port from 1 to 65535');
  for (let index = 0; index < argv.length; index++) {
    const name = argv[index]!;
    const value = argv[index + 1];
    index += 1;
    if (name === '--engines') {
      const engines = (value ?? '').split(',');
      if (engines.some((engine) => engine !== 'sqlite' && engine !== 'postgres')) throw new Error(`--engines: must be sqlite, postgres or both (got ${value ?? 'nothing'}): ${USAGE}`);
      options.engines = engines as Engine[];
    } else if (name === '--seconds') options.seconds = number(name, value, (n) => n >= 5, 'at least 5');
    else if (name === '--payments') options.payments = number(name, value, (n) => Number.isInteger(n) && n >= 10, 'a whole number, at least 10');
    else if (name === '--gateway-port') options.gatewayPort = port(name, value);
    else if (name === '--shop-port') options.shopPort = port(name, value);
    else if (name === '--rate') options.rate = number(name, value, (n) => n > 0 && n <= 1_000, 'a number of links a second from more than 0 to 1000');
    else if (name === '--lost-share') options.lostShare = number(name, value, (n) => n >= 0 && n < 1, 'from 0 to less than 1');
    else throw new Error(`unknown option ${name}: ${USAGE}`);
  }
  if (options.gatewayPort !== undefined && options.gatewayPort === options.shopPort) throw new Error(`--gateway-port and --shop-port: must differ: ${USAGE}`);
  return options;
}

/** A percentile of sorted figures (pure); 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
