package backtest

import (
	"errors"
	"fmt"

	"github.com/mmbot/mmbot/exchange"
)

// ErrInvalidEvent is wrapped by every validation failure of an event.
var ErrInvalidEvent = errors.New("invalid event")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidEvent, fmt.Sprintf(format, a...))
}

// Validate checks the invariants the recording format promises: the member
// named by Kind is set, a token (or, for Meta, a market) is named, at least
// one timestamp is set, prices are positive, sizes are not negative, trade
// sizes are positive, the taker side is BUY, SELL or empty, and the book
// sides are strictly sorted best first.
func (e Event) Validate() error {
	switch e.Kind {
	case KindBook:
		if e.Book == nil {
			return invalid("book event without book")
		}
		return e.Book.validate()
	case KindTrade:
		if e.Trade == nil {
			return invalid("trade event without trade")
		}
		return e.Trade.validate()
	case KindMeta:
		if e.Meta == nil {
			return invalid("meta event without meta")
		}
		return e.Meta.validate()
	}
	return invalid("unknown kind %d", e.Kind)
}

func (s *Stamp) validate() error {
	if s.Exchange.IsZero() && s.Received.IsZero() {
		return invalid("no timestamp")
	}
	return nil
}

func (b *Book) validate() error {
	if b.TokenID == "" {
		return invalid("book without token")
	}
	if err := b.Stamp.validate(); err != nil {
		return err
	}
	if b.TickSize.IsNegative() || b.MinOrderSize.IsNegative() {
		return invalid("book %s: negative tick or min size", b.TokenID)
	}
	if err := checkSide(b.Bids, "bids", 1); err != nil {
		return fmt.Errorf("book %s: %w", b.TokenID, err)
	}
	if err := checkSide(b.Asks, "asks", -1); err != nil {
		return fmt.Errorf("book %s: %w", b.TokenID, err)
	}
	return nil
}

// checkSide checks positive prices, non-negative sizes and strict ordering:
// dir 1 for descending (bids), -1 for ascending (asks).
func checkSide(lv []exchange.PriceLevel, name string, dir int) error {
	for i := range lv {
		if !lv[i].Price.IsPositive() {
			return invalid("%s[%d]: price %s not positive", name, i, lv[i].Price)
		}
		if lv[i].Size.IsNegative() {
			return invalid("%s[%d]: negative size %s", name, i, lv[i].Size)
		}
		if i > 0 && lv[i-1].Price.Cmp(lv[i].Price) != dir {
			return invalid("%s[%d]: price %s out of order (best first)", name, i, lv[i].Price)
		}
	}
	return nil
}

func (t *Trade) validate() error {
	if t.TokenID == "" {
		return invalid("trade without token")
	}
	if err := t.Stamp.validate(); err != nil {
		return err
	}
	if !t.Price.IsPositive() {
		return invalid("trade %s: price %s not positive", t.TokenID, t.Price)
	}
	if !t.Size.IsPositive() {
		return invalid("trade %s: size %s not positive", t.TokenID, t.Size)
	}
	if t.TakerSide != "" && !t.TakerSide.Valid() {
		return invalid("trade %s: taker side %q", t.TokenID, t.TakerSide)
	}
	return nil
}

func (m *Meta) validate() error {
	if m.TokenID == "" && m.Market == "" {
		return invalid("meta without token or market")
	}
	if err := m.Stamp.validate(); err != nil {
		return err
	}
	if m.TickSize.IsNegative() || m.MinOrderSize.IsNegative() || m.Payout.IsNegative() {
		return invalid("meta %s%s: negative value", m.Market, m.TokenID)
	}
	if !m.Resolved && !m.Payout.IsZero() {
		return invalid("meta %s%s: payout without resolution", m.Market, m.TokenID)
	}
	return nil
}
