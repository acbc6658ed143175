package assemble

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// StrategyParams builds the model, the tolerance and the pre-trade checker
// from the [strategy] and [risk] sections. SIGHUP calls it again.
func StrategyParams(cfg *configs.Config) (loop.Params, strategy.EstimatorParams, error) {
	sc := &cfg.Strategy
	est := strategy.DefaultEstimatorParams()
	if hl := sc.Avellaneda.VolHalflife.Std(); hl > 0 {
		est.Vol.HalfLife = hl
	}
	var model strategy.Model
	var err error
	size := sc.OrderSize.InexactFloat64()
	ladder := strategy.Ladder{Size: size, Levels: sc.Avellaneda.Levels, Spacing: sc.Avellaneda.LevelSpacing, AllowSell: sc.AllowSell}
	switch sc.Model {
	case "bands":
		p := strategy.BandsParams{AllowSell: sc.AllowSell}
		for _, lv := range sc.Bands.Levels {
			p.Offsets = append(p.Offsets, lv.Offset.InexactFloat64())
			p.Sizes = append(p.Sizes, lv.Size.InexactFloat64())
		}
		model, err = strategy.NewBands(p)
	case "avellaneda":
		a := &sc.Avellaneda
		ladder.MinSpread = 0.01 * float64(a.MinSpreadTicks)
		ladder.MaxSpread = a.MaxSpread.InexactFloat64()
		model, err = strategy.NewAvellaneda(strategy.AvellanedaParams{Gamma: a.Gamma, K: a.K, Horizon: a.Horizon.Std(),
			InventoryUnit: size, Ladder: ladder})
	case "glft":
		g := &sc.GLFT
		ladder.MinSpread = 0.01 * float64(sc.Avellaneda.MinSpreadTicks)
		ladder.MaxSpread = sc.Avellaneda.MaxSpread.InexactFloat64()
		model, err = strategy.NewGLFT(strategy.GLFTParams{Gamma: g.Gamma, K: g.K, A: g.A, InventoryUnit: size, Ladder: ladder})
	case "naive":
		model, err = strategy.NewNaive(strategy.NaiveParams{Size: size, AllowSell: sc.AllowSell})
	case "touch":
		model, err = strategy.NewTouch(strategy.TouchParams{Size: size, SkewShares: sc.Touch.SkewShares.InexactFloat64(),
			MaxSkewTicks: sc.Touch.MaxSkewTicks, AllowSell: sc.AllowSell})
	default:
		err = fmt.Errorf("strategy.model %q: want bands, avellaneda, glft, touch or naive", sc.Model)
	}
	if err != nil {
		return loop.Params{}, est, fmt.Errorf("strategy.%s: %w", sc.Model, err)
	}
	if sc.LiftToMinSize {
		model = strategy.WithMinSize(model)
	}
	if sc.Rewards.Enabled {
		r := &sc.Rewards
		if model, err = strategy.WithRewards(model, strategy.RewardParams{Enabled: true, Always: r.Always,
			MarkoutHorizon: r.MarkoutHorizon.Std(), MarkoutFills: r.MarkoutFills, Hold: r.Hold.Std(),
			MaxSize: cfg.Risk.MaxOrderSize.InexactFloat64(), MaxNotional: cfg.Risk.MaxOrderNotional.InexactFloat64()}); err != nil {
			return loop.Params{}, est, fmt.Errorf("strategy.rewards: %w", err)
		}
	}
	if sc.Adverse.Enabled {
		if model, err = strategy.WithAdverse(model, adverseParams(&sc.Adverse)); err != nil {
			return loop.Params{}, est, fmt.Errorf("strategy.adverse: %w", err)
		}
	}
	model, err = strategy.WithEndDate(model, strategy.EndDateParams{Taper: sc.EndDate.Taper.Std(), ReduceOnly: sc.EndDate.ReduceOnly.Std(),
		Stop: sc.EndDate.Stop.Std(), MinFactor: 0.25})
	if err != nil {
		return loop.Params{}, est, fmt.Errorf("strategy.end_date: %w", err)
	}
	tol := strategy.Tolerance{PriceTicks: sc.PriceToleranceTicks, SizeFrac: sc.SizeTolerance.InexactFloat64()}
	if err := tol.Validate(); err != nil {
		return loop.Params{}, est, fmt.Errorf("strategy tolerance: %w", err)
	}
	checker, err := risk.NewChecker(RiskLimits(&cfg.Risk))
	if err != nil {
		return loop.Params{}, est, err // "risk: limits: ..."
	}
	return loop.Params{Model: model, Tolerance: tol, Checker: checker}, est, nil
}

// adverseParams maps [strategy.adverse] onto the adverse-selection rules.
func adverseParams(a *configs.Adverse) strategy.AdverseParams {
	return strategy.AdverseParams{
		BackoffTicks: a.BackoffTicks, BackoffFor: a.BackoffFor.Std(), PauseFraction: a.PauseFraction, PauseFor: a.PauseFor.Std(),
		ThroughCooling: a.ThroughCooling.Std(), JumpCooling: a.JumpCooling.Std(), JumpK: a.JumpK, JumpMinTicks: a.JumpMinTicks,
		MarkoutHorizon: a.MarkoutHorizon.Std(), MarkoutFills: a.MarkoutFills, MarkoutThreshold: a.MarkoutThreshold,
		WidenTicks: a.WidenTicks, WidenMultiple: a.WidenMultiple, WidenCapTicks: a.WidenCapTicks,
		FlowWindow: a.FlowWindow.Std(), FlowMinPrints: a.FlowMinPrints, FlowThreshold: a.FlowThreshold, FlowTicks: a.FlowTicks,
	}
}

// RiskLimits maps [risk] onto the pre-trade limits. max_collateral_at_risk
// bounds the total; the per-market collateral limit is not configurable yet.
func RiskLimits(r *configs.Risk) risk.Limits {
	return risk.Limits{
		MaxMarketShares: r.MaxPosition, MaxTotalShares: r.MaxTotalPosition, MaxTotalAtRisk: r.MaxCollateralAtRisk,
		MaxOrderSize: r.MaxOrderSize, MaxOrderNotional: r.MaxOrderNotional,
		MaxOpenPerMarket: r.MaxOpenOrdersMarket, MaxOpenTotal: r.MaxOpenOrdersTotal,
		Collar: r.PriceCollar, FillCooldown: r.Cooldown.Std(),
	}
}

// KillConfig maps [risk] onto the kill switch: max_drawdown is the fall from
// the session's PnL high-water mark ("session") or the loss since the start
// of the UTC day ("day").
func KillConfig(r *configs.Risk) risk.KillConfig {
	k := risk.KillConfig{MaxConsecutiveErrors: r.MaxConsecutiveErrors, MaxErrorRate: r.MaxErrorRate, ErrorWindow: r.ErrorWindow.Std(),
		MaxBookAge: r.MaxBookAge.Std(), MaxClockSkew: r.MaxClockSkew.Std(), MaxCancelThrottle: r.MaxCancelThrottle.Std(),
		AutoClearAfter: r.AutoClearAfter.Std(), AutoClearMaxPerDay: r.AutoClearMaxPerDay}
	if r.DrawdownWindow == "day" {
		k.MaxDailyLoss = r.MaxDrawdown
	} else {
		k.MaxDrawdown = r.MaxDrawdown
	}
	return k
}

// LoopConfig builds the loop's fixed configuration.
func LoopConfig(cfg *configs.Config, markets []strategy.Market, p loop.Params, est strategy.EstimatorParams, kill *risk.KillSwitch) loop.Config {
	return loop.Config{Markets: markets, Params: p, Estimators: est, Kill: kill, Cycle: cfg.Strategy.Cycle.Std(),
		MaxBatch: cfg.Exchange.MaxBatch, MaxBookAge: cfg.Risk.MaxBookAge.Std(), TapeLimit: 200, NotFoundGrace: inflightGrace(cfg),
		OrderReadShare: cfg.Strategy.OrderReadShare, Unknown: loop.UnknownPolicy(cfg.State.UnknownOrders), CheckBook: exchange.ValidateBook}
}

// inflightMargin is what the computed in-flight grace adds to the request
// timeout: the time between an intent's journaling and its send, and clocks.
const inflightMargin = 5 * time.Second

// inflightGrace is state.inflight_grace, or exchange.request_timeout plus
// inflightMargin when it is 0 (the loop adds each market's seconds_delay).
func inflightGrace(cfg *configs.Config) time.Duration {
	if g := cfg.State.InflightGrace.Std(); g > 0 {
		return g
	}
	return cfg.Exchange.RequestTimeout.Std() + inflightMargin
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
