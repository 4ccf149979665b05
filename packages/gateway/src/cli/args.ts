/** Command-line parsing for `tombolbayar-gateway`: flags to a validated config, or a usage error. */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseNotificationKinds, type NotificationKind } from '../domain/notify-kinds.ts';
import { defaultDataDir } from '../options.ts';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Command =
  | { readonly kind: 'serve' }
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'platform-key' }
  | {
      readonly kind: 'merchant-create';
      readonly merchantCode: string;
      readonly name?: string;
      readonly keysDir?: string;
      readonly notify?: readonly NotificationKind[];
    }
  | { readonly kind: 'merchant-update'; readonly merchantCode: string; readonly notify: readonly NotificationKind[] }
  | { readonly kind: 'merchant-list' }
  | { readonly kind: 'merchant-brand'; readonly merchantCode: string; readonly changes: BrandFlags }
  | { readonly kind: 'simulate'; readonly action: 'pay' | 'expire' | 'fail'; readonly number: string; readonly method?: string }
  | { readonly kind: 'deliveries'; readonly follow: boolean }
  | { readonly kind: 'resend'; readonly id: string }
  | { readonly kind: 'personal-data'; readonly action: 'erase' | 'export'; readonly query: { readonly email?: string; readonly phone?: string; readonly orderNum?: string } };

/** `merchant brand` flags as typed: absent keeps the stored value, `""` unsets it. */
export interface BrandFlags {
  readonly displayName?: string;
  readonly logo?: string;
  readonly accentColor?: string;
  readonly supportContact?: string;
}

export interface CliConfig {
  readonly command: Command;
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl?: string;
  readonly databaseSchema?: string;
  readonly platformKeyFile?: string;
  readonly merchants: readonly { merchantCode: string; publicKeyFile: string }[];
  readonly publicUrl?: string;
  readonly sandbox: boolean;
  readonly timeScale: number;
  readonly logLevel?: string;
  /** `pretty` (human lines) or `json`; default pretty when stdout is a terminal. */
  readonly logFormat?: 'json' | 'pretty';
  /** The running gateway the sandbox verbs talk to (default http://127.0.0.1:PORT). */
  readonly url: string;
  /** Days after an order ends before its personal data is redacted; false: never (`--retention-days off`). */
  readonly retentionDays?: number | false;
  /** Bearer token that opens `GET /metrics` to other than loopback (`--metrics-token`, `$TOMBOLBAYAR_METRICS_TOKEN`). */
  readonly metricsToken?: string;
}

export const DEFAULT_PORT = 4000;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  'database-url': { type: 'string' },
  'database-schema': { type: 'string' },
  'platform-key': { type: 'string' },
  merchant: { type: 'string', multiple: true },
  'public-url': { type: 'string' },
  sandbox: { type: 'boolean' },
  'time-scale': { type: 'string' },
  'log-level': { type: 'string' },
  name: { type: 'string' },
  'keys-dir': { type: 'string' },
  url: { type: 'string' },
  follow: { type: 'boolean' },
  method: { type: 'string' },
  logo: { type: 'string' },
  accent: { type: 'string' },
  support: { type: 'string' },
  notify: { type: 'string' },
  'log-format': { type: 'string' },
  email: { type: 'string' },
  phone: { type: 'string' },
  order: { type: 'string' },
  'retention-days': { type: 'string' },
  'metrics-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

const DAYS_RULE = { error: 'must be a whole number of days from 1 to 36500, or off' };

const flagsSchema = z.object({
  port: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65_535, { error: 'must be from 0 to 65535' }),
  host: z.string().min(1),
  timeScale: z.coerce.number({ error: 'must be a number' }).positive({ error: 'must be more than 0' }).max(1_000),
  publicUrl: z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).optional(),
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// URL' }).optional(),
  databaseSchema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { error: 'must be a plain identifier' }).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  logFormat: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).optional(),
  metricsToken: z.string().regex(/^[\x21-\x7e]{1,512}$/, { error: 'must be 1 to 512 visible ASCII characters (no spaces)' }).optional(),
  retentionDays: z
    .union([z.literal('off').transform(() => false as const), z.coerce.number().int(DAYS_RULE).min(1, DAYS_RULE).max(36_500, DAYS_RULE)], DAYS_RULE)
    .optional(),
});

const SIMULATE_ACTIONS = ['pay', 'expire', 'fail'] as const;

function parseMerchantFlag(value: string): { merchantCode: string; publicKeyFile: string } {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1) throw new UsageError(`--merchant must be CODE=PUBLIC_KEY_FILE, got "${value}"`);
  return { merchantCode: value.slice(0, at), publicKeyFile: value.slice(at + 1) };
}

interface CommandFlags {
  name?: string;
  'keys-dir'?: string;
  follow?: boolean;
  method?: string;
  logo?: string;
  accent?: string;
  support?: string;
  notify?: string;
  email?: string;
  phone?: string;
  order?: string;
}

function brandFlags(values: CommandFlags): BrandFlags {
  const pairs = [['displayName', values.name], ['logo', values.logo], ['accentColor', values.accent], ['supportContact', values.support]] as const;
  return Object.fromEntries(pairs.filter(([, value]) => value !== undefined));
}

/** `--notify paid,failed,expired` as the set of kinds, or a usage error stating the rule. */
function notifyFlag(value: string): readonly NotificationKind[] {
  const parsed = parseNotificationKinds(value);
  if (!parsed.ok) throw new UsageError(`--notify ${parsed.message}`);
  return parsed.value;
}

function commandOf(positionals: string[], values: CommandFlags): Command {
  const [first, second, third, ...rest] = positionals;
  const action = SIMULATE_ACTIONS.find((name) => name === first);
  if (action) {
    if (second === undefined) throw new UsageError(`${action} needs an order: tombolbayar-gateway ${action} ORDERNUM|PLATORDERNUM|VANUMBER`);
    if (third !== undefined) throw new UsageError(`unexpected argument "${third}"`);
    if (values.method !== undefined && action !== 'pay') throw new UsageError('--method is for pay only');
    return { kind: 'simulate', action, number: second, ...(values.method !== undefined ? { method: values.method } : {}) };
  }
  if (first === 'deliveries') {
    if (second !== undefined) throw new UsageError(`unexpected argument "${second}"`);
    return { kind: 'deliveries', follow: values.follow ?? false };
  }
  if (first === 'resend') {
    if (second === undefined) throw new UsageError('resend needs a notification id: tombolbayar-gateway resend ID (ids: tombolbayar-gateway deliveries)');
    if (third !== undefined) throw new UsageError(`unexpected argument "${third}"`);
    return { kind: 'resend', id: second };
  }
  if (first === undefined || first === 'serve') {
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${second}"`);
    return { kind: 'serve' };
  }
  if (first === 'personal-data') {
    if (second !== 'erase' && second !== 'export') throw new UsageError('personal-data needs a subcommand: erase or export, with --email, --phone or --order');
    if (third !== undefined) throw new UsageError(`unexpected argument "${third}"`);
    const query = { ...(values.email !== undefined ? { email: values.email } : {}), ...(values.phone !== undefined ? { phone: values.phone } : {}), ...(values.order !== undefined ? { orderNum: values.order } : {}) };
    if (Object.keys(query).length === 0) throw new UsageError(`personal-data ${second} needs --email, --phone or --order`);
    return { kind: 'personal-data', action: second, query };
  }
  if (first === 'help') return { kind: 'help' };
  if (first === 'platform-key') {
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${second}"`);
    return { kind: 'platform-key' };
  }
  if (first === 'merchant') {
    if (second === 'list' && third === undefined) return { kind: 'merchant-list' };
    if (second === 'brand') {
      if (third === undefined) throw new UsageError('merchant brand needs a merchant code: tombolbayar-gateway merchant brand CODE [--name NAME] [--logo URL] [--accent #RRGGBB] [--support TEXT]');
      if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
      return { kind: 'merchant-brand', merchantCode: third, changes: brandFlags(values) };
    }
    if (second === 'create') {
      if (third === undefined) throw new UsageError('merchant create needs a merchant code: tombolbayar-gateway merchant create CODE');
      if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
      return {
        kind: 'merchant-create',
        merchantCode: third,
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values['keys-dir'] !== undefined ? { keysDir: values['keys-dir'] } : {}),
        ...(values.notify !== undefined ? { notify: notifyFlag(values.notify) } : {}),
      };
    }
    if (second === 'update') {
      if (third === undefined) throw new UsageError('merchant update needs a merchant code: tombolbayar-gateway merchant update CODE --notify paid[,failed][,expired]');
      if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
      if (values.notify === undefined) throw new UsageError('merchant update needs a setting: --notify paid[,failed][,expired]');
      return { kind: 'merchant-update', merchantCode: third, notify: notifyFlag(values.notify) };
    }
    throw new UsageError('merchant needs a subcommand: create CODE, update CODE, brand CODE, or list');
  }
  throw new UsageError(`unknown command "${first}"`);
}

/** Parse argv (without `node` and the script) and the environment. */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliConfig {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const command: Command = values.help ? { kind: 'help' } : values.version ? { kind: 'version' } : commandOf(positionals, values);
  const flags = flagsSchema.safeParse({
    port: values.port ?? env.PORT ?? DEFAULT_PORT,
    host: values.host ?? '127.0.0.1',
    timeScale: values['time-scale'] ?? 1,
    publicUrl: values['public-url'],
    databaseUrl: values['database-url'] ?? (env.DATABASE_URL || undefined),
    databaseSchema: values['database-schema'],
    logLevel: values['log-level'],
    logFormat: values['log-format'],
    url: values.url,
    retentionDays: values['retention-days'],
    metricsToken: values['metrics-token'] ?? (env.TOMBOLBAYAR_METRICS_TOKEN || undefined),
  });
  if (!flags.success) {
    const issue = flags.error.issues[0];
    const flag = String(issue?.path[0] ?? '').replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    throw new UsageError(`--${flag} ${issue?.message ?? 'is invalid'}`);
  }
  return {
    command,
    port: flags.data.port,
    host: flags.data.host,
    dataDir: values.data ?? defaultDataDir(),
    ...(flags.data.databaseUrl ? { databaseUrl: flags.data.databaseUrl } : {}),
    ...(flags.data.databaseSchema ? { databaseSchema: flags.data.databaseSchema } : {}),
    ...(values['platform-key'] ? { platformKeyFile: values['platform-key'] } : {}),
    merchants: (values.merchant ?? []).map(parseMerchantFlag),
    ...(flags.data.publicUrl ? { publicUrl: flags.data.publicUrl } : {}),
    sandbox: values.sandbox ?? false,
    timeScale: flags.data.timeScale,
    ...(flags.data.logLevel ? { logLevel: flags.data.logLevel } : {}),
    ...(flags.data.logFormat ? { logFormat: flags.data.logFormat } : {}),
    url: flags.data.url ?? `http://127.0.0.1:${flags.data.port}`,
    ...(flags.data.retentionDays !== undefined ? { retentionDays: flags.data.retentionDays } : {}),
    ...(flags.data.metricsToken ? { metricsToken: flags.data.metricsToken } : {}),
  };
}
