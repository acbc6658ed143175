package configs

import "github.com/shopspring/decimal"

// Strategy is the [strategy] section: the quote model and the loop.
type Strategy struct {
	Model               string          `koanf:"model"` // bands|avellaneda|glft|touch|naive
	Cycle               Duration        `koanf:"cycle"`
	OrderSize           decimal.Decimal `koanf:"order_size"`
	PriceToleranceTicks int             `koanf:"price_tolerance_ticks"`
	SizeTolerance       decimal.Decimal `koanf:"size_tolerance"`
	AllowSell           bool            `koanf:"allow_sell"`
	QuoteBothTokens     bool            `koanf:"quote_both_tokens"`
	LiftToMinSize       bool            `koanf:"lift_to_min_size"` // raise quotes below a market's minimum order size to it
	// OrderReadShare is the share of the order-book API's read budget that
	// one cycle's round-robin order reads may take (fills are found in the
	// trade history; these reads are the slow back-stop).
	OrderReadShare float64 `koanf:"order_read_share"`

	Bands      Bands      `koanf:"bands"`
	Avellaneda Avellaneda `koanf:"avellaneda"`
	GLFT       GLFT       `koanf:"glft"`
	Touch      Touch      `koanf:"touch"`
	Rewards    Rewards    `koanf:"rewards"`
	EndDate    EndDate    `koanf:"end_date"`
	Adverse    Adverse    `koanf:"adverse"`
	Guard      Guard      `koanf:"guard"`
}

// Bands is [strategy.bands]: fixed levels around fair value.
type Bands struct {
	Levels []BandLevel `koanf:"levels"`
}

// BandLevel is one level: a price offset from fair value and a size in
// shares, on each side.
type BandLevel struct {
	Offset decimal.Decimal `koanf:"offset"`
	Size   decimal.Decimal `koanf:"size"`
}

// Avellaneda is [strategy.avellaneda]: the inventory-aware model in logit
// space. Gamma and K are model parameters, not money, so float64.
type Avellaneda struct {
	Gamma          float64         `koanf:"gamma"`
	K              float64         `koanf:"k"`
	Horizon        Duration        `koanf:"horizon"` // T−t; the time to the end date when sooner
	VolHalflife    Duration        `koanf:"vol_halflife"`
	MinSpreadTicks int             `koanf:"min_spread_ticks"`
	MaxSpread      decimal.Decimal `koanf:"max_spread"`
	Levels         int             `koanf:"levels"`        // quotes per side (avellaneda and glft)
	LevelSpacing   float64         `koanf:"level_spacing"` // logit units between levels
}

// GLFT is [strategy.glft]: the horizon-free variant.
type GLFT struct {
	Gamma float64 `koanf:"gamma"`
	K     float64 `koanf:"k"`
	A     float64 `koanf:"a"`
}

// Touch is [strategy.touch]: the touch model's inventory skew
// (docs/strategies.md).
type Touch struct {
	SkewShares   decimal.Decimal `koanf:"skew_shares"`    // net shares per tick of skew; 0: 2 × order_size
	MaxSkewTicks int             `koanf:"max_skew_ticks"` // 0: 5
}

// Rewards is [strategy.rewards]: reward-aware quoting (docs/strategies.md,
// "Reward-aware quoting"). When enabled, each market that pays liquidity
// rewards is quoted inside its band (max spread, min size) while the
// expected reward beats the adverse selection its recent fills' markouts
// measure; always skips that decision.
type Rewards struct {
	Enabled        bool     `koanf:"enabled"`
	Always         bool     `koanf:"always"`          // quote inside the band in every paying market, whatever the markouts
	MarkoutHorizon Duration `koanf:"markout_horizon"` // 1s, 10s or 60s
	MarkoutFills   int      `koanf:"markout_fills"`   // the recent fills weighed (and needed before they count)
	Hold           Duration `koanf:"hold"`            // how long a market's decision stands
}

// EndDate is [strategy.end_date]: how long before a market's end date the
// bot tapers sizes, then only reduces its position, then stops quoting.
type EndDate struct {
	Taper      Duration `koanf:"taper"`
	ReduceOnly Duration `koanf:"reduce_only"`
	Stop       Duration `koanf:"stop"`
}

// Adverse is [strategy.adverse]: the rules against adverse selection that
// wrap every model (docs/strategies.md, "Adverse selection"). A zero
// backoff_ticks, pause_for, through_cooling, jump_cooling, jump_k or
// markout_fills turns its part off. Ticks and thresholds are model parameters, so float64.
type Adverse struct {
	Enabled          bool     `koanf:"enabled"`
	BackoffTicks     float64  `koanf:"backoff_ticks"`     // after a fill, its side moves this many ticks × the depth fraction taken
	BackoffFor       Duration `koanf:"backoff_for"`       // ... shrinking to nothing over this
	PauseFraction    float64  `koanf:"pause_fraction"`    // a fill taking at least this fraction of the depth pauses its side
	PauseFor         Duration `koanf:"pause_for"`         // ... for this long
	ThroughCooling   Duration `koanf:"through_cooling"`   // a trade through our level pulls the market's quotes this long
	JumpCooling      Duration `koanf:"jump_cooling"`      // a fair-value jump pulls them this long
	JumpK            float64  `koanf:"jump_k"`            // a jump is a move of more than jump_k standard deviations
	JumpMinTicks     float64  `koanf:"jump_min_ticks"`    // ... and of at least this many ticks
	MarkoutHorizon   Duration `koanf:"markout_horizon"`   // 1s, 10s or 60s
	MarkoutFills     int      `koanf:"markout_fills"`     // the window of recent fills averaged
	MarkoutThreshold float64  `koanf:"markout_threshold"` // widen when their mean markout per share is below −this
	WidenTicks       float64  `koanf:"widen_ticks"`
	WidenMultiple    float64  `koanf:"widen_multiple"` // × the mean loss per share
	WidenCapTicks    float64  `koanf:"widen_cap_ticks"`
	FlowWindow       Duration `koanf:"flow_window"`     // the prints whose takers' net direction is read
	FlowMinPrints    int      `koanf:"flow_min_prints"` // ... at least this many of them
	FlowThreshold    float64  `koanf:"flow_threshold"`  // an imbalance beyond this moves the side they take
	FlowTicks        float64  `koanf:"flow_ticks"`      // ... by up to this many ticks (at imbalance 1)
}

// Guard is [strategy.guard]: the watcher that cancels every live order and
// trips the kill switch when the quote loop is blind (no cycle completed for
// MaxCycleGap, or live orders on books older than risk.max_book_age that no
// cycle has seen).
type Guard struct {
	Period      Duration `koanf:"period"`        // how often it looks
	MaxCycleGap Duration `koanf:"max_cycle_gap"` // no completed cycle for this long: the loop is blind
}

// Risk is the [risk] section: pre-trade limits and the kill switch.
type Risk struct {
	MaxPosition          decimal.Decimal `koanf:"max_position"`       // shares per market
	MaxTotalPosition     decimal.Decimal `koanf:"max_total_position"` // shares, all markets
	MaxCollateralAtRisk  decimal.Decimal `koanf:"max_collateral_at_risk"`
	MaxOrderSize         decimal.Decimal `koanf:"max_order_size"`
	MaxOrderNotional     decimal.Decimal `koanf:"max_order_notional"`
	MaxOpenOrdersMarket  int             `koanf:"max_open_orders_market"`
	MaxOpenOrdersTotal   int             `koanf:"max_open_orders_total"`
	PriceCollar          decimal.Decimal `koanf:"price_collar"`
	Cooldown             Duration        `koanf:"cooldown"`
	MaxDrawdown          decimal.Decimal `koanf:"max_drawdown"`
	DrawdownWindow       string          `koanf:"drawdown_window"` // session|day
	MaxConsecutiveErrors int             `koanf:"max_consecutive_errors"`
	MaxErrorRate         float64         `koanf:"max_error_rate"`
	ErrorWindow          Duration        `koanf:"error_window"`
	MaxBookAge           Duration        `koanf:"max_book_age"`
	MaxClockSkew         Duration        `koanf:"max_clock_skew"`
	MaxCancelThrottle    Duration        `koanf:"max_cancel_throttle"` // 0: off
	// AutoClearAfter: a trip caused by the exchange being away clears by
	// itself once the exchange has answered normally this long (0: every
	// trip waits for an operator); AutoClearMaxPerDay caps such clears per
	// UTC day.
	AutoClearAfter     Duration `koanf:"auto_clear_after"`
	AutoClearMaxPerDay int      `koanf:"auto_clear_max_per_day"`
}

// State is the [state] section: the bbolt journal.
type State struct {
	Path          string   `koanf:"path"`
	LockTimeout   Duration `koanf:"lock_timeout"`
	UnknownOrders string   `koanf:"unknown_orders"` // report|cancel|adopt
	// InflightGrace is how long an order whose placement answer never came
	// stays possibly live before it may be declared failed; 0 computes it
	// as exchange.request_timeout + 5s. Each market's seconds_delay is added.
	InflightGrace Duration `koanf:"inflight_grace"`
	// Retention is how long a final order with nothing matched stays in the
	// journal; zero keeps every order.
	Retention  Duration `koanf:"retention"`
	PruneBatch int      `koanf:"prune_batch"` // orders removed per pruning transaction
}

// Metrics is the [metrics] section.
type Metrics struct {
	Enabled     bool   `koanf:"enabled"`
	Listen      string `koanf:"listen"`
	AllowPublic bool   `koanf:"allow_public"`
}

// Shutdown is the [shutdown] section.
type Shutdown struct {
	CancelTimeout Duration `koanf:"cancel_timeout"`
}

// Sim is the [sim] section: the embedded simulated exchange.
type Sim struct {
	Seed    int64 `koanf:"seed"`
	Markets int   `koanf:"markets"`
}

// Backtest is the [backtest] section.
type Backtest struct {
	FillModel     string   `koanf:"fill_model"` // queue|conservative|optimistic
	LatencyOrder  Duration `koanf:"latency_order"`
	LatencyCancel Duration `koanf:"latency_cancel"`
	LatencyData   Duration `koanf:"latency_data"`
	MakerFeeBps   int      `koanf:"maker_fee_bps"`
	TakerFeeBps   int      `koanf:"taker_fee_bps"`
}
