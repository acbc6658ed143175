package recording

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/shopspring/decimal"

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

// checkFixed checks that d is representable as a Fixed (at most 6 decimal
// places, magnitude below 9.2e12) and not negative.
func checkFixed(what string, d decimal.Decimal) (exchange.Fixed, error) {
	f, err := exchange.FixedFromDecimal(d)
	if err != nil {
		return 0, invalid("%s: %v", what, err)
	}
	if f < 0 {
		return 0, invalid("%s: negative (%s)", what, f)
	}
	return f, nil
}

func (b *Book) validate() error {
	if b.TokenID == "" {
		return invalid("book without token")
	}
	if err := b.Stamp.validate(); err != nil {
		return err
	}
	if _, err := checkFixed("tick", b.TickSize); err != nil {
		return err
	}
	if _, err := checkFixed("min_size", b.MinOrderSize); err != nil {
		return err
	}
	if b.fx != nil {
		if err := checkFixedSide(b.fx.Bids, "bids", 1); err != nil {
			return fmt.Errorf("book %s: %w", b.TokenID, err)
		}
		if err := checkFixedSide(b.fx.Asks, "asks", -1); err != nil {
			return fmt.Errorf("book %s: %w", b.TokenID, err)
		}
		return nil
	}
	if err := checkSide(b.Bids, "bids", 1); err != nil {
		return fmt.Errorf("book %s: %w", b.TokenID, err)
	}
	if err := checkSide(b.Asks, "asks", -1); err != nil {
		return fmt.Errorf("book %s: %w", b.TokenID, err)
	}
	return nil
}

// checkFixedSide is checkSide for levels already in Fixed units (the
// decoder's side-car of the same levels).
func checkFixedSide(lv []Level, name string, dir int) error {
	for i, l := range lv {
		if l.Price <= 0 {
			return invalid("%s[%d]: price %s must be positive with at most 6 decimals", name, i, l.Price)
		}
		if l.Size < 0 {
			return invalid("%s[%d]: size %s must be non-negative with at most 6 decimals", name, i, l.Size)
		}
		if i > 0 && (dir > 0 && lv[i-1].Price <= l.Price || dir < 0 && lv[i-1].Price >= l.Price) {
			return invalid("%s[%d]: price %s out of order (best first)", name, i, l.Price)
		}
	}
	return nil
}

// checkSide checks positive prices, non-negative sizes, both with at most 6
// decimals, and strict ordering: dir 1 for descending (bids), -1 for
// ascending (asks).
func checkSide(lv []exchange.PriceLevel, name string, dir int) error {
	var prev exchange.Fixed
	for i := range lv {
		p, err := exchange.FixedFromDecimal(lv[i].Price)
		if err != nil || p <= 0 {
			return invalid("%s[%d]: price %s must be positive with at most 6 decimals", name, i, decText(lv[i].Price))
		}
		if s, err := exchange.FixedFromDecimal(lv[i].Size); err != nil || s < 0 {
			return invalid("%s[%d]: size %s must be non-negative with at most 6 decimals", name, i, decText(lv[i].Size))
		}
		if i > 0 && (dir > 0 && prev <= p || dir < 0 && prev >= p) {
			return invalid("%s[%d]: price %s out of order (best first)", name, i, p)
		}
		prev = p
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
	if p, err := checkFixed("trade price", t.Price); err != nil || p == 0 {
		return invalid("trade %s: price must be positive with at most 6 decimals (%v)", t.TokenID, err)
	}
	if s, err := checkFixed("trade size", t.Size); err != nil || s == 0 {
		return invalid("trade %s: size must be positive with at most 6 decimals (%v)", t.TokenID, err)
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
	for _, f := range []struct {
		name string
		d    decimal.Decimal
	}{{"tick", m.TickSize}, {"min_size", m.MinOrderSize}, {"payout", m.Payout},
		{"reward_max_spread", m.RewardMaxSpread}, {"reward_min_size", m.RewardMinSize}, {"reward_daily_rate", m.RewardDailyRate}} {
		if _, err := checkFixed(f.name, f.d); err != nil {
			return err
		}
	}
	if !m.Resolved && !m.Payout.IsZero() {
		return invalid("meta %s%s: payout without resolution", m.Market, m.TokenID)
	}
	if m.SecondsDelay < 0 || m.SecondsDelay > MaxSecondsDelay {
		return invalid("meta %s%s: seconds_delay %d not in [0, %d]", m.Market, m.TokenID, m.SecondsDelay, MaxSecondsDelay)
	}
	if len(m.Question) > MaxMetaText || len(m.Slug) > MaxMetaText {
		return invalid("meta %s%s: question or slug longer than %d bytes", m.Market, m.TokenID, MaxMetaText)
	}
	return nil
}

// decText formats d for an error message without expanding a huge exponent
// (a fuzzed level can carry one).
func decText(d decimal.Decimal) string {
	if e := d.Exponent(); e > -40 && e < 40 {
		return d.String()
	}
	return d.Coefficient().String() + "e" + strconv.Itoa(int(d.Exponent()))
}
