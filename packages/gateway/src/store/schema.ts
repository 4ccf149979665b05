/**
 * Table types of the gateway's database, as Kysely sees them. Columns are snake_case; the store
 * modules map rows to the camelCase domain objects, so nothing above `store/` knows a column name.
 *
 * Portability rules (SQLite and PostgreSQL run the same queries): times are epoch milliseconds in
 * `bigint` columns, flags are integers 0/1, structured values are JSON text, ids are text.
 */
export interface MerchantsTable {
  merchant_code: string;
  name: string | null;
  public_key: string;
  /** JSON array of the notification kinds sent to it (`domain/notify-kinds.ts`), e.g. `["paid"]`. */
  notify_kinds: string;
  created_at: number;
  updated_at: number;
}

export interface OrdersTable {
  plat_order_num: string;
  merchant_code: string;
  order_num: string;
  /** Which endpoint created it: `va` (/gateway/pay) or `link` (/gateway/prepaidOrder). */
  kind: string;
  status: string;
  method: string | null;
  va_number: string | null;
  pay_money: number;
  pay_fee: number | null;
  product_detail: string;
  name: string;
  email: string;
  phone: string;
  notify_url: string;
  redirect_url: string | null;
  expiry_period: number;
  /** The merchant's `dateTime` as sent, kept for support and audits. */
  request_date_time: string;
  created_at: number;
  expires_at: number;
  paid_at: number | null;
  closed_at: number | null;
  /** When the customer's name, e-mail and phone were redacted (retention or erasure); null while kept. */
  redacted_at: number | null;
  /** The W3C `traceparent` of the span that created the order (issue 34), or null without tracing. */
  trace_parent: string | null;
}

/** Named leases: which process runs a background job (the personal-data retention pass) now. */
export interface LeasesTable {
  name: string;
  owner: string;
  expires_at: number;
}

export interface NotificationsTable {
  id: string;
  plat_order_num: string;
  merchant_code: string;
  order_num: string;
  /** The order state told: PAID, FAILED or EXPIRED. */
  event: string;
  url: string;
  /** The signed form fields, JSON: every attempt sends exactly these bytes. */
  fields: string;
  /** pending | delivered | dead | dropped */
  state: string;
  /** Sandbox fault that shaped this row (`duplicate`, `delay`, `drop`), or null. */
  fault: string | null;
  attempt_count: number;
  /** Failed attempts since creation or the last resend: what the retry schedule counts. */
  round_attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

export interface DeliveryAttemptsTable {
  id: string;
  notification_id: string;
  number: number;
  attempted_at: number;
  acknowledged: number;
  http_status: number | null;
  latency_ms: number;
  error_class: string | null;
  body_excerpt: string;
  /** Why the attempt failed, in a few words (never the request body). */
  detail: string | null;
  /** Which gateway process made the attempt. */
  worker: string;
}

/** Sandbox only: how a merchant looks on the sandbox dashboard (name, logo, accent colour). */
export interface MerchantBrandingTable {
  merchant_code: string;
  display_name: string | null;
  /** An https/http URL or a base64 raster-image data URL, validated by `sandbox/branding.ts`. */
  logo: string | null;
  /** `#rrggbb`. */
  accent_color: string | null;
  /** Email, phone or URL customers may contact, as plain text; validated by `sandbox/branding.ts`. */
  support_contact: string | null;
  updated_at: number;
}

export interface GatewayDatabase {
  merchants: MerchantsTable;
  orders: OrdersTable;
  notifications: NotificationsTable;
  delivery_attempts: DeliveryAttemptsTable;
  merchant_branding: MerchantBrandingTable;
  leases: LeasesTable;
}
