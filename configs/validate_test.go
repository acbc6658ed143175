package configs

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/internal/secret"
)

// validBase is a configuration that passes Validate: the defaults with the
// three URLs and a market selection.
func validBase() Config {
	c := Defaults()
	c.Exchange.DataURL = "http://127.0.0.1:8080/data"
	c.Exchange.CatalogURL = "http://127.0.0.1:8080/catalog"
	c.Exchange.CLOBURL = "https://clob.example.test"
	c.Markets.Auto.Enabled = true
	return c
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

const (
	goodAddr = "0x00000000000000000000000000000000000000aB"
	goodB32  = "0x1111111111111111111111111111111111111111111111111111111111111111"
	goodUUID = "0c6b1e5e-3b7a-4d2f-9a41-2f7e8c1d9b00"
)

var validateCases = []struct {
	name string
	edit func(c *Config)
	want []string // keys with a problem, in order; nil: valid
}{
	{"base is valid", func(*Config) {}, nil},
	// log
	{"log.level debug", func(c *Config) { c.Log.Level = "debug" }, nil},
	{"log.level unknown", func(c *Config) { c.Log.Level = "verbose" }, []string{"log.level"}},
	{"log.format console", func(c *Config) { c.Log.Format = "console" }, nil},
	{"log.format unknown", func(c *Config) { c.Log.Format = "xml" }, []string{"log.format"}},
	// exchange URLs
	{"embedded sim needs no URLs", func(c *Config) {
		c.Exchange.EmbeddedSim = true
		c.Exchange.DataURL, c.Exchange.CatalogURL, c.Exchange.CLOBURL = "", "", ""
	}, nil},
	{"embedded sim ignores URLs", func(c *Config) { c.Exchange.EmbeddedSim = true; c.Exchange.DataURL = "ftp://x" }, nil},
	{"clob_url required", func(c *Config) { c.Exchange.CLOBURL = "" }, []string{"exchange.clob_url"}},
	{"all URLs required", func(c *Config) { c.Exchange.DataURL, c.Exchange.CatalogURL, c.Exchange.CLOBURL = "", "", "" },
		[]string{"exchange.data_url", "exchange.catalog_url", "exchange.clob_url"}},
	{"a credentials file stands in for empty URLs", func(c *Config) {
		c.Account.CredentialsFile = "sim-creds.json"
		c.Exchange.DataURL, c.Exchange.CatalogURL, c.Exchange.CLOBURL = "", "", ""
	}, nil},
	{"a credentials file does not excuse a bad URL", func(c *Config) {
		c.Account.CredentialsFile = "sim-creds.json"
		c.Exchange.CatalogURL = "ftp://x"
	}, []string{"exchange.catalog_url"}},
	{"URL scheme", func(c *Config) { c.Exchange.DataURL = "ftp://h/data" }, []string{"exchange.data_url"}},
	{"URL host", func(c *Config) { c.Exchange.CatalogURL = "http:///catalog" }, []string{"exchange.catalog_url"}},
	{"URL query", func(c *Config) { c.Exchange.CLOBURL = "http://h/clob?x=1" }, []string{"exchange.clob_url"}},
	{"URL unparsable", func(c *Config) { c.Exchange.CLOBURL = "http://h:port/" }, []string{"exchange.clob_url"}},
	// exchange scalars
	{"chain_id other", func(c *Config) { c.Exchange.ChainID = 80002 }, nil},
	{"chain_id zero", func(c *Config) { c.Exchange.ChainID = 0 }, []string{"exchange.chain_id"}},
	{"exchange_address other", func(c *Config) { c.Exchange.ExchangeAddress = goodAddr }, nil},
	{"exchange_address short", func(c *Config) { c.Exchange.ExchangeAddress = "0x1234" }, []string{"exchange.exchange_address"}},
	{"neg_risk address not hex", func(c *Config) { c.Exchange.NegRiskExchangeAddress = "0xzz22d279d744050d28e00520010520000310F59" }, []string{"exchange.neg_risk_exchange_address"}},
	{"neg_risk address equals exchange", func(c *Config) {
		c.Exchange.NegRiskExchangeAddress = strings.ToLower(c.Exchange.ExchangeAddress)
	}, []string{"exchange.neg_risk_exchange_address"}},
	{"domain_name empty", func(c *Config) { c.Exchange.DomainName = "" }, []string{"exchange.domain_name"}},
	{"domain_version empty", func(c *Config) { c.Exchange.DomainVersion = "" }, []string{"exchange.domain_version"}},
	{"request_timeout zero", func(c *Config) { c.Exchange.RequestTimeout = 0 }, []string{"exchange.request_timeout"}},
	{"max_batch 1", func(c *Config) { c.Exchange.MaxBatch = 1 }, nil},
	{"max_batch 0", func(c *Config) { c.Exchange.MaxBatch = 0 }, []string{"exchange.max_batch"}},
	{"max_batch 16", func(c *Config) { c.Exchange.MaxBatch = 16 }, []string{"exchange.max_batch"}},
	{"auth_window zero", func(c *Config) { c.Exchange.AuthWindow = 0 }, []string{"exchange.auth_window"}},
	// limits and retry
	{"fill 1", func(c *Config) { c.Exchange.Limits.Fill = 1 }, nil},
	{"fill 0", func(c *Config) { c.Exchange.Limits.Fill = 0 }, []string{"exchange.limits.fill"}},
	{"fill 1.5", func(c *Config) { c.Exchange.Limits.Fill = 1.5 }, []string{"exchange.limits.fill"}},
	{"fill NaN", func(c *Config) { c.Exchange.Limits.Fill = math.NaN() }, []string{"exchange.limits.fill"}},
	{"limit requests 1", func(c *Config) { c.Exchange.Limits.CLOBBooks.Requests = 1 }, nil},
	{"limit requests 0", func(c *Config) { c.Exchange.Limits.CLOBBooks.Requests = 0 }, []string{"exchange.limits.clob_books.requests"}},
	{"limit window 0", func(c *Config) { c.Exchange.Limits.PostOrderSustained.Window = 0 }, []string{"exchange.limits.post_order_sustained.window"}},
	{"every limit checked", func(c *Config) { c.Exchange.Limits = Limits{Fill: 0.5} }, allLimitKeys()},
	{"max_attempts 0", func(c *Config) { c.Exchange.Retry.MaxAttempts = 0 }, []string{"exchange.retry.max_attempts"}},
	{"max_attempts 21", func(c *Config) { c.Exchange.Retry.MaxAttempts = 21 }, []string{"exchange.retry.max_attempts"}},
	{"base_delay 0", func(c *Config) { c.Exchange.Retry.BaseDelay = 0 }, []string{"exchange.retry.base_delay"}},
	{"max_delay below base", func(c *Config) { c.Exchange.Retry.MaxDelay = Duration(time.Millisecond) }, []string{"exchange.retry.max_delay"}},
	{"max_delay equals base", func(c *Config) { c.Exchange.Retry.MaxDelay = c.Exchange.Retry.BaseDelay }, nil},
	// account
	{"signature_type 4", func(c *Config) { c.Account.SignatureType = 4 }, []string{"account.signature_type"}},
	{"signature_type -1", func(c *Config) { c.Account.SignatureType = -1 }, []string{"account.signature_type"}},
	{"type 1 with funder", func(c *Config) { c.Account.SignatureType = 1; c.Account.Funder = goodAddr }, nil},
	{"type 2 without funder", func(c *Config) { c.Account.SignatureType = 2 }, []string{"account.funder"}},
	{"type 3 bad funder", func(c *Config) { c.Account.SignatureType = 3; c.Account.Funder = "0xabc" }, []string{"account.funder"}},
	{"type 0 with funder", func(c *Config) { c.Account.Funder = goodAddr }, []string{"account.funder"}},
	{"env names ok", func(c *Config) { c.Account.PrivateKeyEnv = "MY_KEY_2"; c.Account.APISecretEnv = "" }, nil},
	{"env names bad", func(c *Config) {
		c.Account.PrivateKeyEnv = "1KEY"
		c.Account.KeystorePasswordEnv = "A-B"
		c.Account.APISecretEnv = "A B"
		c.Account.PassphraseEnv = "P=Q"
	}, []string{"account.private_key_env", "account.keystore_password_env", "account.api_secret_env", "account.passphrase_env"}},
	{"key file and keystore", func(c *Config) { c.Account.PrivateKeyFile = "k"; c.Account.KeystoreFile = "ks" }, []string{"account.keystore_file"}},
	{"keystore with env password", func(c *Config) { c.Account.KeystoreFile = "ks" }, nil},
	{"keystore without password", func(c *Config) { c.Account.KeystoreFile = "ks"; c.Account.KeystorePasswordEnv = "" }, []string{"account.keystore_password_file"}},
	{"credential names bad", func(c *Config) {
		c.Account.CredentialName = "a/b"
		c.Account.APISecretCredential = ".."
		c.Account.PassphraseCredential = "x\x00"
	}, []string{"account.credential_name", "account.api_secret_credential", "account.passphrase_credential"}},
	{"api_key uuid", func(c *Config) { c.Account.APIKey = secret.New(goodUUID) }, nil},
	{"api_key not uuid", func(c *Config) { c.Account.APIKey = secret.New("0c6b1e5e-3b7a-4d2f-9a41-2f7e8c1d9bzz") }, []string{"account.api_key"}},
	{"credentials_file alone", func(c *Config) { c.Account.CredentialsFile = "creds.json" }, nil},
	{"credentials_file and individual", func(c *Config) {
		c.Account.CredentialsFile = "creds.json"
		c.Account.APIKey = secret.New(goodUUID)
		c.Account.APISecretFile = "s"
		c.Account.PassphraseFile = "p"
	}, []string{"account.api_key", "account.api_secret_file", "account.passphrase_file"}},
	{"builder and metadata", func(c *Config) { c.Account.BuilderCode = goodB32; c.Account.Metadata = goodB32 }, nil},
	{"builder and metadata bad", func(c *Config) { c.Account.BuilderCode = "0x12"; c.Account.Metadata = goodAddr },
		[]string{"account.builder_code", "account.metadata"}},
	// markets
	{"condition ids", func(c *Config) { c.Markets.ConditionIDs = []string{goodB32, strings.Replace(goodB32, "1", "2", 1)} }, nil},
	{"condition id bad", func(c *Config) { c.Markets.ConditionIDs = []string{"0x12"} }, []string{"markets.condition_ids"}},
	{"condition id twice, any case", func(c *Config) {
		id := strings.Repeat("ab", 32)
		c.Markets.ConditionIDs = []string{"0x" + id, "0x" + strings.ToUpper(id)}
	}, []string{"markets.condition_ids"}},
	{"slugs", func(c *Config) { c.Markets.Slugs = []string{"will-it-rain"} }, nil},
	{"slugs bad", func(c *Config) { c.Markets.Slugs = []string{"", "a b"} }, []string{"markets.slugs", "markets.slugs"}},
	{"max_markets 0", func(c *Config) { c.Markets.Auto.MaxMarkets = 0 }, []string{"markets.auto.max_markets"}},
	{"min_liquidity negative", func(c *Config) { c.Markets.Auto.MinLiquidity = dec("-1") }, []string{"markets.auto.min_liquidity"}},
	{"tags", func(c *Config) { c.Markets.Auto.Tags = []string{"politics"} }, nil},
	{"tags empty string", func(c *Config) { c.Markets.Auto.Tags = []string{" "} }, []string{"markets.auto.tags"}},
	// strategy
	{"model avellaneda", func(c *Config) { c.Strategy.Model = "avellaneda" }, nil},
	{"model glft without levels", func(c *Config) { c.Strategy.Model = "glft"; c.Strategy.Bands.Levels = nil }, nil},
	{"model unknown", func(c *Config) { c.Strategy.Model = "grid" }, []string{"strategy.model"}},
	{"cycle zero", func(c *Config) { c.Strategy.Cycle = 0 }, []string{"strategy.cycle"}},
	{"order_size zero", func(c *Config) { c.Strategy.OrderSize = decimal.Zero }, []string{"strategy.order_size"}},
	{"order_size above max_order_size", func(c *Config) { c.Strategy.OrderSize = dec("100.01") }, []string{"strategy.order_size"}},
	{"price_tolerance_ticks 0", func(c *Config) { c.Strategy.PriceToleranceTicks = 0 }, nil},
	{"price_tolerance_ticks -1", func(c *Config) { c.Strategy.PriceToleranceTicks = -1 }, []string{"strategy.price_tolerance_ticks"}},
	{"size_tolerance 0 and 1", func(c *Config) { c.Strategy.SizeTolerance = decimal.Zero }, nil},
	{"size_tolerance 1.5", func(c *Config) { c.Strategy.SizeTolerance = dec("1.5") }, []string{"strategy.size_tolerance"}},
	{"size_tolerance negative", func(c *Config) { c.Strategy.SizeTolerance = dec("-0.1") }, []string{"strategy.size_tolerance"}},
	{"bands without levels", func(c *Config) { c.Strategy.Model, c.Strategy.Bands.Levels = "bands", nil }, []string{"strategy.bands.levels"}},
	{"band level bad", func(c *Config) {
		c.Strategy.Bands.Levels = []BandLevel{{Offset: dec("0.05"), Size: dec("1")}, {Offset: dec("0.05"), Size: dec("0")}, {Offset: dec("1"), Size: dec("101")}}
	}, []string{"strategy.bands.levels[1].offset", "strategy.bands.levels[1].size", "strategy.bands.levels[2].offset", "strategy.bands.levels[2].size"}},
	{"band offset zero", func(c *Config) { c.Strategy.Bands.Levels = []BandLevel{{Offset: decimal.Zero, Size: dec("1")}} }, []string{"strategy.bands.levels[0].offset"}},
	{"avellaneda bad", func(c *Config) {
		a := &c.Strategy.Avellaneda
		a.Gamma, a.K, a.Horizon, a.VolHalflife, a.MinSpreadTicks, a.MaxSpread = math.Inf(1), -1, 0, 0, -1, dec("1")
	}, []string{"strategy.avellaneda.gamma", "strategy.avellaneda.k", "strategy.avellaneda.horizon", "strategy.avellaneda.vol_halflife", "strategy.avellaneda.min_spread_ticks", "strategy.avellaneda.max_spread"}},
	{"avellaneda max_spread 0", func(c *Config) { c.Strategy.Avellaneda.MaxSpread = decimal.Zero }, []string{"strategy.avellaneda.max_spread"}},
	{"glft bad", func(c *Config) { c.Strategy.GLFT = GLFT{} }, []string{"strategy.glft.gamma", "strategy.glft.k", "strategy.glft.a"}},
	{"end_date all equal", func(c *Config) {
		c.Strategy.EndDate = EndDate{Taper: Duration(time.Hour), ReduceOnly: Duration(time.Hour), Stop: Duration(time.Hour)}
	}, nil},
	{"end_date stop negative", func(c *Config) { c.Strategy.EndDate.Stop = Duration(-time.Second) }, []string{"strategy.end_date.stop"}},
	{"end_date reduce_only below stop", func(c *Config) { c.Strategy.EndDate.ReduceOnly = Duration(time.Minute) }, []string{"strategy.end_date.reduce_only"}},
	{"end_date taper below reduce_only", func(c *Config) { c.Strategy.EndDate.Taper = Duration(2 * time.Hour) }, []string{"strategy.end_date.taper"}},
	{"adverse every rule off", func(c *Config) { c.Strategy.Adverse = Adverse{Enabled: true} }, nil},
	{"adverse bad numbers", func(c *Config) {
		a := &c.Strategy.Adverse
		a.BackoffTicks, a.JumpK, a.JumpMinTicks, a.MarkoutThreshold, a.WidenTicks, a.WidenMultiple, a.WidenCapTicks = -1, math.NaN(), -1, -0.1, -1, math.Inf(1), -1
	}, []string{"strategy.adverse.backoff_ticks", "strategy.adverse.jump_k", "strategy.adverse.jump_min_ticks", "strategy.adverse.markout_threshold",
		"strategy.adverse.widen_ticks", "strategy.adverse.widen_multiple", "strategy.adverse.widen_cap_ticks"}},
	{"adverse bad durations", func(c *Config) {
		a := &c.Strategy.Adverse
		a.BackoffFor, a.PauseFor, a.ThroughCooling, a.JumpCooling = 0, Duration(-time.Second), Duration(2*time.Hour), Duration(-time.Second)
	}, []string{"strategy.adverse.pause_for", "strategy.adverse.through_cooling", "strategy.adverse.jump_cooling", "strategy.adverse.backoff_for"}},
	{"adverse pause_fraction 0 with pause_for", func(c *Config) { c.Strategy.Adverse.PauseFraction = 0 }, []string{"strategy.adverse.pause_fraction"}},
	{"adverse pause_fraction 0 without pause_for", func(c *Config) { c.Strategy.Adverse.PauseFraction, c.Strategy.Adverse.PauseFor = 0, 0 }, nil},
	{"adverse markout window and horizon", func(c *Config) {
		c.Strategy.Adverse.MarkoutFills, c.Strategy.Adverse.MarkoutHorizon = 257, Duration(5*time.Second)
	}, []string{"strategy.adverse.markout_fills", "strategy.adverse.markout_horizon"}},
	{"adverse markout off, any horizon", func(c *Config) {
		c.Strategy.Adverse.MarkoutFills, c.Strategy.Adverse.MarkoutHorizon = 0, Duration(5*time.Second)
	}, nil},
	{"adverse flow bad values", func(c *Config) {
		a := &c.Strategy.Adverse
		a.FlowWindow, a.FlowMinPrints, a.FlowThreshold, a.FlowTicks = Duration(2*time.Hour), -1, 1, math.NaN()
	}, []string{"strategy.adverse.flow_ticks", "strategy.adverse.flow_window", "strategy.adverse.flow_threshold", "strategy.adverse.flow_min_prints"}},
	{"adverse flow threshold negative, window negative", func(c *Config) {
		c.Strategy.Adverse.FlowThreshold, c.Strategy.Adverse.FlowWindow = -0.5, Duration(-time.Second)
	}, []string{"strategy.adverse.flow_window", "strategy.adverse.flow_threshold"}},
	{"guard period zero", func(c *Config) { c.Strategy.Guard.Period = 0 }, []string{"strategy.guard.period"}},
	{"guard gap not above period", func(c *Config) {
		c.Strategy.Guard.Period, c.Strategy.Guard.MaxCycleGap = Duration(5*time.Second), Duration(5*time.Second)
	}, []string{"strategy.guard.max_cycle_gap"}},
	{"guard gap below two cycles (mmbot run's rule, not the config's)", func(c *Config) { c.Strategy.Cycle = Duration(10 * time.Second) }, nil},
	// risk
	{"risk decimals zero", func(c *Config) {
		r := &c.Risk
		r.MaxPosition, r.MaxTotalPosition, r.MaxCollateralAtRisk, r.MaxOrderSize, r.MaxOrderNotional, r.MaxDrawdown =
			decimal.Zero, decimal.Zero, decimal.Zero, dec("-1"), decimal.Zero, decimal.Zero
		c.Strategy.OrderSize = dec("-2")
		c.Strategy.Bands.Levels = nil
		c.Strategy.Model = "glft"
	}, []string{"strategy.order_size", "risk.max_position", "risk.max_total_position", "risk.max_collateral_at_risk", "risk.max_order_size", "risk.max_order_notional", "risk.max_drawdown"}},
	{"max_position above total", func(c *Config) { c.Risk.MaxPosition = dec("2000.5") }, []string{"risk.max_position"}},
	{"open orders", func(c *Config) { c.Risk.MaxOpenOrdersMarket = 0 }, []string{"risk.max_open_orders_market"}},
	{"open orders total below market", func(c *Config) { c.Risk.MaxOpenOrdersTotal = 7 }, []string{"risk.max_open_orders_total"}},
	{"price_collar", func(c *Config) { c.Risk.PriceCollar = dec("1") }, []string{"risk.price_collar"}},
	{"price_collar zero", func(c *Config) { c.Risk.PriceCollar = decimal.Zero }, []string{"risk.price_collar"}},
	{"cooldown zero", func(c *Config) { c.Risk.Cooldown = 0 }, nil},
	{"cooldown negative", func(c *Config) { c.Risk.Cooldown = Duration(-1) }, []string{"risk.cooldown"}},
	{"drawdown_window day", func(c *Config) { c.Risk.DrawdownWindow = "day" }, nil},
	{"drawdown_window week", func(c *Config) { c.Risk.DrawdownWindow = "week" }, []string{"risk.drawdown_window"}},
	{"max_consecutive_errors 0", func(c *Config) { c.Risk.MaxConsecutiveErrors = 0 }, []string{"risk.max_consecutive_errors"}},
	{"max_error_rate 1", func(c *Config) { c.Risk.MaxErrorRate = 1 }, nil},
	{"max_error_rate 0", func(c *Config) { c.Risk.MaxErrorRate = 0 }, []string{"risk.max_error_rate"}},
	{"max_error_rate 1.1", func(c *Config) { c.Risk.MaxErrorRate = 1.1 }, []string{"risk.max_error_rate"}},
	{"risk windows zero", func(c *Config) { c.Risk.ErrorWindow, c.Risk.MaxBookAge, c.Risk.MaxClockSkew = 0, 0, 0 },
		[]string{"risk.error_window", "risk.max_book_age", "risk.max_clock_skew"}},
	{"auto_clear_after off", func(c *Config) { c.Risk.AutoClearAfter = 0 }, nil},
	{"auto_clear negative", func(c *Config) { c.Risk.AutoClearAfter, c.Risk.AutoClearMaxPerDay = Duration(-1), 0 },
		[]string{"risk.auto_clear_after", "risk.auto_clear_max_per_day"}},
	// state
	{"state bad", func(c *Config) { c.State = State{UnknownOrders: "ignore"} }, []string{"state.path", "state.lock_timeout", "state.unknown_orders", "state.prune_batch"}},
	{"state retention too short", func(c *Config) { c.State.Retention = Duration(time.Second) }, []string{"state.retention"}},
	{"state adopt", func(c *Config) { c.State.UnknownOrders = "adopt" }, nil},
	// metrics
	{"metrics ipv6 loopback", func(c *Config) { c.Metrics.Listen = "[::1]:9464" }, nil},
	{"metrics localhost", func(c *Config) { c.Metrics.Listen = "localhost:0" }, nil},
	{"metrics not host:port", func(c *Config) { c.Metrics.Listen = "nonsense" }, []string{"metrics.listen"}},
	{"metrics bad port", func(c *Config) { c.Metrics.Listen = "127.0.0.1:99999" }, []string{"metrics.listen"}},
	{"metrics public", func(c *Config) { c.Metrics.Listen = "0.0.0.0:9464" }, []string{"metrics.listen"}},
	{"metrics all interfaces", func(c *Config) { c.Metrics.Listen = ":9464" }, []string{"metrics.listen"}},
	{"metrics public allowed", func(c *Config) { c.Metrics.Listen = ":9464"; c.Metrics.AllowPublic = true }, nil},
	{"metrics public but disabled", func(c *Config) { c.Metrics.Listen = "0.0.0.0:9464"; c.Metrics.Enabled = false }, nil},
	// shutdown, sim, backtest
	{"cancel_timeout zero", func(c *Config) { c.Shutdown.CancelTimeout = 0 }, []string{"shutdown.cancel_timeout"}},
	{"sim markets 0", func(c *Config) { c.Sim.Markets = 0 }, []string{"sim.markets"}},
	{"sim markets 1001", func(c *Config) { c.Sim.Markets = 1001 }, []string{"sim.markets"}},
	{"backtest ok", func(c *Config) {
		c.Backtest.FillModel = "optimistic"
		c.Backtest.MakerFeeBps = -5
		c.Backtest.TakerFeeBps = 10000
	}, nil},
	{"backtest bad", func(c *Config) {
		b := &c.Backtest
		b.FillModel, b.LatencyOrder, b.LatencyCancel, b.LatencyData, b.MakerFeeBps, b.TakerFeeBps = "magic", -1, -1, -1, -10001, -1
	}, []string{"backtest.fill_model", "backtest.latency_order", "backtest.latency_cancel", "backtest.latency_data", "backtest.maker_fee_bps", "backtest.taker_fee_bps"}},
	{"taker fee too high", func(c *Config) { c.Backtest.TakerFeeBps = 10001 }, []string{"backtest.taker_fee_bps"}},
}

func allLimitKeys() []string {
	var keys []string
	for _, k := range Keys() {
		if strings.HasPrefix(k, "exchange.limits.") && k != "exchange.limits.fill" {
			keys = append(keys, k)
		}
	}
	return keys
}

func TestValidate(t *testing.T) {
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			c := validBase()
			tc.edit(&c)
			err := c.Validate()
			var got []string
			if err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("error %T is not a *ValidationError: %v", err, err)
				}
				for _, p := range ve.Problems {
					got = append(got, p.Key)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("problems at %q, want %q\n%v", got, tc.want, err)
			}
		})
	}
}

// TestValidateAllAtOnce breaks one rule in every section and expects every
// problem in one error, each written as "key = value: rule".
func TestValidateAllAtOnce(t *testing.T) {
	c := validBase()
	c.Log.Level = "loud"
	c.Exchange.MaxBatch = 99
	c.Account.APIKey = secret.New("supersecret-not-a-uuid")
	c.Strategy.Cycle = 0
	c.Risk.DrawdownWindow = "week"
	c.State.Path = ""
	c.Sim.Markets = 0
	err := c.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	want := []string{
		`log.level = "loud": must be trace, debug, info, warn or error`,
		`exchange.max_batch = 99: must be in 1..15`,
		`account.api_key = [redacted]: must be a UUID (8-4-4-4-12 hex digits)`,
		`strategy.cycle = "0s": must be > 0`,
		`risk.drawdown_window = "week": must be session or day`,
		`state.path = "": must not be empty`,
		`sim.markets = 0: must be in 1..1000`,
	}
	if len(ve.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ve.Problems), len(want), err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "invalid configuration (7 problems):") {
		t.Errorf("message starts %q", msg)
	}
	for i, w := range want {
		if got := ve.Problems[i].String(); got != w {
			t.Errorf("problem %d = %q, want %q", i, got, w)
		}
		if !strings.Contains(msg, "\n  "+w) {
			t.Errorf("message lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "supersecret") {
		t.Errorf("message leaks the api key: %s", msg)
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"x", `"x"`},
		{Duration(1500 * time.Millisecond), `"1.5s"`},
		{dec("0.050"), `"0.05"`},
		{[]string{"a", "b"}, `["a", "b"]`},
		{[]BandLevel{{Offset: dec("0.01"), Size: dec("5")}}, `[{offset = "0.01", size = "5"}]`},
		{secret.New("hush"), "[redacted]"},
		{secret.Value{}, `""`},
		{42, "42"},
		{true, "true"},
	} {
		if got := formatValue(tc.in); got != tc.want {
			t.Errorf("formatValue(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
