package configs

import (
	"time"

	"github.com/shopspring/decimal"
)

// Default exchange addresses and domain (DESIGN.md §4).
const (
	DefaultExchangeAddress        = "0xE111180000d2663C0091e4f400237545B87B996B"
	DefaultNegRiskExchangeAddress = "0xe2222d279d744050d28e00520010520000310F59"
	DefaultDomainName             = "Polymarket CTF Exchange"
	DefaultDomainVersion          = "2"
	DefaultChainID                = 137
	// MaxBatchCap is the most orders one POST /orders may carry.
	MaxBatchCap = 15
)

// Defaults returns the configuration every source is applied on top of. It
// is the one place where default values are written; the example file and
// docs/configuration.md show the same values, and a test holds them equal.
func Defaults() Config {
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	per := func(n int, w time.Duration) RateLimit { return RateLimit{Requests: n, Window: Duration(w)} }
	const tenS = 10 * time.Second
	return Config{
		Log: Log{Level: "info", Format: "auto"},
		Exchange: Exchange{
			ChainID:                DefaultChainID,
			ExchangeAddress:        DefaultExchangeAddress,
			NegRiskExchangeAddress: DefaultNegRiskExchangeAddress,
			DomainName:             DefaultDomainName,
			DomainVersion:          DefaultDomainVersion,
			RequestTimeout:         Duration(10 * time.Second),
			MaxBatch:               MaxBatchCap,
			AuthWindow:             Duration(30 * time.Second),
			MaxRetryAfter:          Duration(time.Minute),
			Limits: Limits{
				Fill:                 0.95,
				CatalogGeneral:       per(4000, tenS),
				CatalogEvents:        per(500, tenS),
				CatalogMarkets:       per(300, tenS),
				CatalogEventsMarkets: per(900, tenS),
				CatalogTags:          per(200, tenS),
				CLOBGeneral:          per(5000, tenS),
				CLOBBooks:            per(80, tenS),
				PostOrderBurst:       per(2400, tenS),
				PostOrderSustained:   per(24000, 10*time.Minute),
				DeleteOrderBurst:     per(2400, tenS),
				DeleteOrderSustained: per(24000, 10*time.Minute),
				DataGeneral:          per(1000, tenS),
				DataTrades:           per(150, tenS),
			},
			Retry: Retry{
				MaxAttempts: 4,
				BaseDelay:   Duration(100 * time.Millisecond),
				MaxDelay:    Duration(5 * time.Second),
			},
			StartRetry: StartRetry{
				BaseDelay: Duration(time.Second),
				MaxDelay:  Duration(time.Minute),
			},
		},
		Account: Account{
			PrivateKeyEnv:        "MMBOT_PRIVATE_KEY",
			KeystorePasswordEnv:  "MMBOT_KEYSTORE_PASSWORD",
			CredentialName:       "mmbot-key",
			APISecretEnv:         "MMBOT_API_SECRET",
			APISecretCredential:  "mmbot-api-secret",
			PassphraseEnv:        "MMBOT_PASSPHRASE",
			PassphraseCredential: "mmbot-passphrase",
		},
		Markets: Markets{
			Auto: MarketsAuto{
				MaxMarkets:          5,
				MinLiquidity:        decimal.Zero,
				AcceptingOrdersOnly: true,
			},
		},
		Strategy: Strategy{
			Model:               "touch",
			Cycle:               Duration(time.Second),
			OrderSize:           d("10"),
			PriceToleranceTicks: 1,
			SizeTolerance:       d("0.1"),
			AllowSell:           true,
			QuoteBothTokens:     true,
			LiftToMinSize:       true,
			OrderReadShare:      0.1,
			Bands: Bands{Levels: []BandLevel{
				{Offset: d("0.01"), Size: d("10")},
				{Offset: d("0.03"), Size: d("20")},
			}},
			Avellaneda: Avellaneda{
				Gamma:          0.1,
				K:              15,
				Horizon:        Duration(24 * time.Hour),
				VolHalflife:    Duration(5 * time.Minute),
				MinSpreadTicks: 1,
				MaxSpread:      d("0.1"),
				Levels:         1,
				LevelSpacing:   0.05,
			},
			GLFT:    GLFT{Gamma: 0.1, K: 15, A: 1},
			Rewards: Rewards{Enabled: true, MarkoutHorizon: Duration(10 * time.Second), MarkoutFills: 20, Hold: Duration(time.Minute)},
			EndDate: EndDate{Taper: Duration(24 * time.Hour), ReduceOnly: Duration(6 * time.Hour), Stop: Duration(time.Hour)},
			Adverse: Adverse{Enabled: true, BackoffTicks: 1, BackoffFor: Duration(5 * time.Second), PauseFraction: 1, PauseFor: Duration(5 * time.Second),
				ThroughCooling: Duration(3 * time.Second), JumpCooling: Duration(10 * time.Second), JumpK: 5, JumpMinTicks: 2, MarkoutHorizon: Duration(10 * time.Second), MarkoutFills: 20,
				MarkoutThreshold: 0.005, WidenTicks: 1, WidenMultiple: 1, WidenCapTicks: 5,
				FlowWindow: Duration(time.Minute), FlowMinPrints: 5, FlowThreshold: 0.2, FlowTicks: 6},
			Guard: Guard{Period: Duration(time.Second), MaxCycleGap: Duration(15 * time.Second)},
		},
		Risk: Risk{
			MaxPosition:          d("500"),
			MaxTotalPosition:     d("2000"),
			MaxCollateralAtRisk:  d("1000"),
			MaxOrderSize:         d("100"),
			MaxOrderNotional:     d("50"),
			MaxOpenOrdersMarket:  8,
			MaxOpenOrdersTotal:   200,
			PriceCollar:          d("0.1"),
			Cooldown:             Duration(2 * time.Second),
			MaxDrawdown:          d("100"),
			DrawdownWindow:       "session",
			MaxConsecutiveErrors: 5,
			MaxErrorRate:         0.5,
			ErrorWindow:          Duration(time.Minute),
			MaxBookAge:           Duration(10 * time.Second),
			MaxClockSkew:         Duration(2 * time.Second),
			MaxCancelThrottle:    Duration(30 * time.Second),
			AutoClearAfter:       Duration(30 * time.Second),
			AutoClearMaxPerDay:   6,
		},
		State: State{Path: "mmbot.db", LockTimeout: Duration(2 * time.Second), UnknownOrders: "report",
			Retention: Duration(time.Hour), PruneBatch: 2000},
		Metrics:  Metrics{Enabled: true, Listen: "127.0.0.1:9464"},
		Shutdown: Shutdown{CancelTimeout: Duration(10 * time.Second)},
		Sim:      Sim{Seed: 1, Markets: 5},
		Backtest: Backtest{
			FillModel:     "queue",
			LatencyOrder:  Duration(50 * time.Millisecond),
			LatencyCancel: Duration(50 * time.Millisecond),
			LatencyData:   Duration(20 * time.Millisecond),
		},
	}
}
