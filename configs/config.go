package configs

import (
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/internal/secret"
)

// Config is the whole daemon's configuration. The koanf tag of each field
// is its key in TOML, the environment and --set; docs/configuration.md
// describes every key.
type Config struct {
	Log      Log      `koanf:"log"`
	Exchange Exchange `koanf:"exchange"`
	Account  Account  `koanf:"account"`
	Markets  Markets  `koanf:"markets"`
	Strategy Strategy `koanf:"strategy"`
	Risk     Risk     `koanf:"risk"`
	State    State    `koanf:"state"`
	Metrics  Metrics  `koanf:"metrics"`
	Shutdown Shutdown `koanf:"shutdown"`
	Sim      Sim      `koanf:"sim"`
	Backtest Backtest `koanf:"backtest"`
}

// Log is the [log] section.
type Log struct {
	Level  string `koanf:"level"`  // trace|debug|info|warn|error
	Format string `koanf:"format"` // auto|json|console
}

// Exchange is the [exchange] section: where the three API areas are and how
// orders are signed for them.
type Exchange struct {
	// EmbeddedSim starts the simulated exchange in-process on loopback; the
	// three URLs are then ignored.
	EmbeddedSim bool   `koanf:"embedded_sim"`
	DataURL     string `koanf:"data_url"`
	CatalogURL  string `koanf:"catalog_url"`
	CLOBURL     string `koanf:"clob_url"`

	ChainID                int64  `koanf:"chain_id"`
	ExchangeAddress        string `koanf:"exchange_address"`
	NegRiskExchangeAddress string `koanf:"neg_risk_exchange_address"`
	DomainName             string `koanf:"domain_name"`
	DomainVersion          string `koanf:"domain_version"`

	RequestTimeout Duration `koanf:"request_timeout"`
	MaxBatch       int      `koanf:"max_batch"`   // orders per POST /orders, 1..15
	AuthWindow     Duration `koanf:"auth_window"` // accepted |SVC_TIMESTAMP - now|
	// MaxRetryAfter caps the wait a Retry-After header can impose.
	MaxRetryAfter Duration `koanf:"max_retry_after"`

	Limits     Limits     `koanf:"limits"`
	Retry      Retry      `koanf:"retry"`
	StartRetry StartRetry `koanf:"start_retry"`
}

// RateLimit is one cap: at most Requests per Window.
type RateLimit struct {
	Requests int      `koanf:"requests"`
	Window   Duration `koanf:"window"`
}

// Limits is [exchange.limits]: every row of the spec's limits table that the
// client uses, plus the data API's general cap (the project's choice; the
// spec shows none). Fill is the fraction of each cap the client plans to use.
type Limits struct {
	Fill                 float64   `koanf:"fill"`
	CatalogGeneral       RateLimit `koanf:"catalog_general"`
	CatalogEvents        RateLimit `koanf:"catalog_events"`
	CatalogMarkets       RateLimit `koanf:"catalog_markets"`
	CatalogEventsMarkets RateLimit `koanf:"catalog_events_markets"`
	CatalogTags          RateLimit `koanf:"catalog_tags"`
	CLOBGeneral          RateLimit `koanf:"clob_general"`
	CLOBBooks            RateLimit `koanf:"clob_books"`
	PostOrderBurst       RateLimit `koanf:"post_order_burst"`
	PostOrderSustained   RateLimit `koanf:"post_order_sustained"`
	DeleteOrderBurst     RateLimit `koanf:"delete_order_burst"`
	DeleteOrderSustained RateLimit `koanf:"delete_order_sustained"`
	DataGeneral          RateLimit `koanf:"data_general"`
	DataTrades           RateLimit `koanf:"data_trades"`
}

// Retry is [exchange.retry]: backoff for idempotent requests. Order POSTs
// are never retried blindly.
type Retry struct {
	MaxAttempts int      `koanf:"max_attempts"`
	BaseDelay   Duration `koanf:"base_delay"`
	MaxDelay    Duration `koanf:"max_delay"`
}

// StartRetry is [exchange.start_retry]: how `mmbot run` waits for an
// exchange it cannot reach at start, before it is ready (backoff from
// BaseDelay doubling to MaxDelay; GiveUpAfter 0 waits until stopped).
type StartRetry struct {
	BaseDelay   Duration `koanf:"base_delay"`
	MaxDelay    Duration `koanf:"max_delay"`
	GiveUpAfter Duration `koanf:"give_up_after"`
}

// Account is the [account] section. The private key is never a value here:
// only the names of the places it is read from.
type Account struct {
	SignatureType int    `koanf:"signature_type"` // 0 EOA, 1 proxy, 2 Safe, 3 deposit wallet
	Funder        string `koanf:"funder"`         // maker address for types 1, 2, 3

	PrivateKeyEnv        string `koanf:"private_key_env"`
	PrivateKeyFile       string `koanf:"private_key_file"`
	KeystoreFile         string `koanf:"keystore_file"`
	KeystorePasswordFile string `koanf:"keystore_password_file"`
	KeystorePasswordEnv  string `koanf:"keystore_password_env"`
	CredentialName       string `koanf:"credential_name"` // systemd LoadCredential name of the key

	APIKey               secret.Value `koanf:"api_key"`
	APISecretEnv         string       `koanf:"api_secret_env"`
	APISecretFile        string       `koanf:"api_secret_file"`
	APISecretCredential  string       `koanf:"api_secret_credential"`
	PassphraseEnv        string       `koanf:"passphrase_env"`
	PassphraseFile       string       `koanf:"passphrase_file"`
	PassphraseCredential string       `koanf:"passphrase_credential"`
	CredentialsFile      string       `koanf:"credentials_file"`

	BuilderCode string `koanf:"builder_code"` // 0x + 64 hex, optional
	Metadata    string `koanf:"metadata"`     // 0x + 64 hex, optional
}

// Markets is the [markets] section: which markets to quote.
type Markets struct {
	ConditionIDs []string    `koanf:"condition_ids"`
	Slugs        []string    `koanf:"slugs"`
	Auto         MarketsAuto `koanf:"auto"`
}

// MarketsAuto is [markets.auto]: pick markets from the listing.
type MarketsAuto struct {
	Enabled             bool            `koanf:"enabled"`
	MaxMarkets          int             `koanf:"max_markets"`
	RequireRewards      bool            `koanf:"require_rewards"`
	MinLiquidity        decimal.Decimal `koanf:"min_liquidity"`
	Tags                []string        `koanf:"tags"`
	AcceptingOrdersOnly bool            `koanf:"accepting_orders_only"`
}
