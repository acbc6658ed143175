package fillmodel

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mmbot/mmbot/exchange"
)

// OrderAmounts reads price and size from a signed order's amounts (integer
// base units of 6 decimals): a BUY gives size × price collateral for size
// shares, a SELL the reverse. The price must come out exact in Fixed units.
func OrderAmounts(so *exchange.SignedOrder) (price, size exchange.Fixed, err error) {
	maker, err1 := strconv.ParseInt(so.MakerAmount, 10, 64)
	taker, err2 := strconv.ParseInt(so.TakerAmount, 10, 64)
	if err1 != nil || err2 != nil || maker <= 0 || taker <= 0 {
		return 0, 0, fmt.Errorf("invalid amounts maker %q taker %q", so.MakerAmount, so.TakerAmount)
	}
	collateral, shares := maker, taker
	if so.Side == exchange.Sell {
		collateral, shares = taker, maker
	}
	// price = collateral / shares, in millionths, exactly.
	price, err = exchange.Fixed(collateral).Div(exchange.Fixed(shares), exchange.RoundExact)
	switch {
	case errors.Is(err, exchange.ErrInexact):
		return 0, 0, fmt.Errorf("amounts maker %s taker %s: price is not exact in 6 decimals", so.MakerAmount, so.TakerAmount)
	case err != nil || price > 1<<62:
		return 0, 0, fmt.Errorf("amounts maker %s taker %s: price out of range", so.MakerAmount, so.TakerAmount)
	}
	return price, exchange.Fixed(shares), nil
}
