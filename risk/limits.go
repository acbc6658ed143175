package risk

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// Limits are the pre-trade limits. A zero value disables that limit; a
// negative one is a configuration error. Shares are outcome-token shares,
// collateral and notional in the collateral currency, Collar in price units
// (0.05 is five cents).
type Limits struct {
	MaxMarketShares  decimal.Decimal // worst-case directional shares per market
	MaxTotalShares   decimal.Decimal // the same, summed over markets
	MaxMarketAtRisk  decimal.Decimal // collateral at risk per market
	MaxTotalAtRisk   decimal.Decimal // collateral at risk over markets
	MaxOrderSize     decimal.Decimal // shares per order
	MaxOrderNotional decimal.Decimal // price × size per order
	MaxOpenPerMarket int             // our open orders per market, new ones included
	MaxOpenTotal     int             // our open orders over markets
	Collar           decimal.Decimal // max |price − fair value of the order's token|
	FillCooldown     time.Duration   // no new order on an outcome and side this long after a fill on it
}

// Validate reports the first invalid field by name.
func (l Limits) Validate() error {
	decs := []struct {
		name string
		v    decimal.Decimal
	}{
		{"MaxMarketShares", l.MaxMarketShares},
		{"MaxTotalShares", l.MaxTotalShares},
		{"MaxMarketAtRisk", l.MaxMarketAtRisk},
		{"MaxTotalAtRisk", l.MaxTotalAtRisk},
		{"MaxOrderSize", l.MaxOrderSize},
		{"MaxOrderNotional", l.MaxOrderNotional},
		{"Collar", l.Collar},
	}
	for _, d := range decs {
		if d.v.IsNegative() {
			return fmt.Errorf("risk: limits: %s must not be negative, got %s", d.name, d.v)
		}
		m, err := exchange.FixedRound(d.v, down)
		if err != nil {
			return fmt.Errorf("risk: limits: %s is out of range: %s", d.name, d.v)
		}
		if m == 0 && d.v.IsPositive() {
			return fmt.Errorf("risk: limits: %s is below one micro-unit: %s", d.name, d.v)
		}
	}
	if l.Collar.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return fmt.Errorf("risk: limits: Collar must be below 1, got %s", l.Collar)
	}
	if l.MaxOpenPerMarket < 0 {
		return fmt.Errorf("risk: limits: MaxOpenPerMarket must not be negative, got %d", l.MaxOpenPerMarket)
	}
	if l.MaxOpenTotal < 0 {
		return fmt.Errorf("risk: limits: MaxOpenTotal must not be negative, got %d", l.MaxOpenTotal)
	}
	if l.FillCooldown < 0 {
		return fmt.Errorf("risk: limits: FillCooldown must not be negative, got %s", l.FillCooldown)
	}
	return nil
}

// unitLimits is Limits in base units; 0 disables a limit.
type unitLimits struct {
	marketShares, totalShares exchange.Fixed
	marketAtRisk, totalAtRisk exchange.Fixed
	orderSize, orderNotional  exchange.Fixed
	collar                    exchange.Fixed
	openMarket, openTotal     int
	cooldown                  time.Duration
}

func (l Limits) units() unitLimits {
	return unitLimits{
		marketShares:  round(l.MaxMarketShares, down),
		totalShares:   round(l.MaxTotalShares, down),
		marketAtRisk:  round(l.MaxMarketAtRisk, down),
		totalAtRisk:   round(l.MaxTotalAtRisk, down),
		orderSize:     round(l.MaxOrderSize, down),
		orderNotional: round(l.MaxOrderNotional, down),
		collar:        round(l.Collar, down),
		openMarket:    l.MaxOpenPerMarket,
		openTotal:     l.MaxOpenTotal,
		cooldown:      l.FillCooldown,
	}
}
