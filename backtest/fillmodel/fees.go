package fillmodel

import (
	"fmt"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// Fees are the trading fees of the simulation, in basis points of a fill's
// notional (price × size). A negative rate is a rebate.
type Fees struct {
	MakerBps decimal.Decimal
	TakerBps decimal.Decimal
}

// Fee returns the fee of one fill in collateral units (exact).
func (f Fees) Fee(price, size exchange.Fixed, taker bool) decimal.Decimal {
	bps := f.MakerBps
	if taker {
		bps = f.TakerBps
	}
	if bps.IsZero() {
		return decimal.Zero
	}
	return price.Decimal().Mul(size.Decimal()).Mul(bps).Shift(-4) // ÷ 10 000, exact
}

// String describes the fees for reports.
func (f Fees) String() string {
	return fmt.Sprintf("maker %s bps, taker %s bps", f.MakerBps, f.TakerBps)
}
