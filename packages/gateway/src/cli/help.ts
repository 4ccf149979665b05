/** The `--help` text: every command and flag, with defaults. */
import { DEFAULT_DATA_DIR } from '../options.ts';
import { DEFAULT_PORT } from './args.ts';

export const HELP = `tombolbayar-gateway: a self-hostable BDPay-family payment gateway (and sandbox)

Usage:
  tombolbayar-gateway [serve] [options]          start the gateway
  tombolbayar-gateway merchant create CODE [--name NAME] [--keys-dir DIR] [--notify KINDS]
                                               create a merchant with a fresh RSA key pair,
                                               register it, and print where the keys went
  tombolbayar-gateway merchant update CODE --notify KINDS
                                               which final states merchant CODE is notified of
  tombolbayar-gateway merchant brand CODE [--name NAME] [--logo URL] [--accent #RRGGBB]
                    [--support TEXT]           how the payment page shows merchant CODE: name,
                                               logo, accent colour, support contact ("" unsets)
  tombolbayar-gateway merchant list              list registered merchants
  tombolbayar-gateway platform-key               print the platform public key (PEM) that
                                               merchants verify platSign with
  tombolbayar-gateway personal-data export|erase [--email EMAIL] [--phone PHONE] [--order ORDERNUM]
                                               every order of a person (all merchants) with its
                                               personal data, as JSON; or redact them in place,
                                               keeping amounts and states (an order still pending
                                               is refused: exit 3). Reaches the store by --data /
                                               --database-url, also while the server runs
  tombolbayar-gateway --help | --version

Sandbox commands (talk to a gateway running with --sandbox, at --url):
  tombolbayar-gateway pay NUMBER [--method CODE]   simulate the customer paying the order NUMBER
                                               names: its orderNum, platOrderNum or VA number /
                                               payment code (--method for a link without one)
  tombolbayar-gateway expire NUMBER              expire the order now
  tombolbayar-gateway fail NUMBER                fail the order
  tombolbayar-gateway deliveries [--follow]      the latest notifications and their attempts;
                                               --follow prints new ones as they happen (Ctrl-C)
  tombolbayar-gateway resend ID                  send notification ID again
  The dashboard, for the same by hand: http://127.0.0.1:${DEFAULT_PORT}/sandbox/dashboard

Options:
  --port N                 port to listen on (default ${DEFAULT_PORT}, or $PORT; 0 = any free port)
  --host HOST              interface to listen on (default 127.0.0.1)
  --data DIR               data directory: SQLite database, generated platform key,
                           merchant keys (default ${DEFAULT_DATA_DIR})
  --database-url URL       use PostgreSQL instead of SQLite (default $DATABASE_URL)
  --database-schema NAME   PostgreSQL schema to keep the gateway's tables in
  --platform-key FILE      platform private key (PEM); default DIR/platform-private.pem,
                           generated on first start. Processes sharing one database must
                           share this key.
  --merchant CODE=FILE     register or update merchant CODE with the public key in FILE
                           (repeatable)
  --public-url URL         base of hosted-page links (default: the URL it listens on)
  --sandbox                sandbox mode: /sandbox API, simulate buttons on the payment page,
                           fault injection, http and loopback callback URLs allowed
  --time-scale X           multiply every notification retry delay by X (default 1;
                           0.001 turns the one-day schedule into about 90 seconds)
  --log-level LEVEL        fatal, error, warn, info (default), debug, trace or silent
  --log-format FORMAT      pretty (human lines; the default when stdout is a terminal) or json
  --retention-days N       redact the name, e-mail and phone of orders that ended more than
                           N days ago (default 90; off: keep them until erased on request)
  --metrics-token TOKEN    also serve GET /metrics (Prometheus) to Authorization: Bearer
                           TOKEN; without it only loopback requests that came through no
                           proxy may read it (default $TOMBOLBAYAR_METRICS_TOKEN)
  --url URL                (sandbox commands) the running gateway (default
                           http://127.0.0.1:PORT, PORT as for --port)
  --name NAME              (merchant create, merchant brand) display name shown to customers
  --keys-dir DIR           (merchant create) where to write the key pair (default DIR/merchants)
  --notify KINDS           (merchant create, merchant update) paid, and failed or expired on
                           request, e.g. paid,failed,expired (default paid: what the family
                           sends; handlers written for it acknowledge nothing else)
  --logo URL               (merchant brand) an https URL, or a data:image/png;base64,... URL
                           (PNG, JPEG, GIF or WebP, at most 64 KiB)
  --accent #RRGGBB         (merchant brand) accent colour
  --support TEXT           (merchant brand) email, phone or URL customers may contact

Examples:
  tombolbayar-gateway merchant create SHOP-001 --name "Toko Kopi"
  tombolbayar-gateway merchant brand SHOP-001 --accent "#c2410c" --support halo@tokokopi.example
  tombolbayar-gateway --sandbox --time-scale 0.01
  tombolbayar-gateway pay 8808123456789012
  tombolbayar-gateway deliveries --follow --url http://127.0.0.1:4000
  tombolbayar-gateway --database-url postgres://gw@db/gw --platform-key /etc/gw/platform.pem \\
                    --merchant SHOP-001=/etc/gw/SHOP-001-public.pem --public-url https://pay.example.com
`;
