/** The `--help` text: every command and flag, with defaults. */
import { DEFAULT_DATA_DIR } from '../options.ts';
import { DEFAULT_PORT } from './args.ts';

export const HELP = `tombolbayar-gateway: a self-hostable BDPay-family payment gateway (and sandbox)

Usage:
  tombolbayar-gateway [serve] [options]          start the gateway
  tombolbayar-gateway merchant create CODE [--name NAME] [--keys-dir DIR]
                                               create a merchant with a fresh RSA key pair,
                                               register it, and print where the keys went
  tombolbayar-gateway merchant list              list registered merchants
  tombolbayar-gateway platform-key               print the platform public key (PEM) that
                                               merchants verify platSign with
  tombolbayar-gateway --help | --version

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
  --name NAME              (merchant create) display name shown to customers
  --keys-dir DIR           (merchant create) where to write the key pair (default DIR/merchants)

Examples:
  tombolbayar-gateway merchant create SHOP-001 --name "Toko Kopi"
  tombolbayar-gateway --sandbox --time-scale 0.01
  tombolbayar-gateway --database-url postgres://gw@db/gw --platform-key /etc/gw/platform.pem \\
                    --merchant SHOP-001=/etc/gw/SHOP-001-public.pem --public-url https://pay.example.com
`;
