package recording

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// This file is the Reader's line decoder: a small JSON scanner specialised to
// event lines. It decodes the known fields straight into their types
// (decimals through Fixed, without text-to-big-number conversion) and skips
// unknown fields, which is several times faster than encoding/json with
// reflection. It accepts a subset of what encoding/json accepts for the same
// target (keys match exactly, not case-insensitively); the tests check by
// differential fuzzing that whatever it accepts, encoding/json decodes to the
// same event.

// decimal decodes a decimal given as a string or a number. Values that are
// not exact in Fixed units are errors (the format allows 6 decimals).
func (s *scanner) decimal() (decimal.Decimal, error) {
	d, _, err := s.decimalFixed()
	return d, err
}

// decimalFixed is decimal that also returns the value in Fixed units.
func (s *scanner) decimalFixed() (decimal.Decimal, exchange.Fixed, error) {
	if s.null() {
		return decimal.Decimal{}, 0, nil
	}
	var raw []byte
	var err error
	if s.peek() == '"' {
		var slow bool
		if raw, slow, err = s.rawString(); err == nil && slow {
			err = s.fail("escaped decimal")
		}
	} else {
		raw, err = s.number()
	}
	if err != nil {
		return decimal.Decimal{}, 0, err
	}
	f, err := exchange.ParseFixedBytes(raw)
	if err != nil {
		return decimal.Decimal{}, 0, err
	}
	if s.cache != nil {
		return s.cache.get(f), f, nil
	}
	return f.Decimal(), f, nil
}

// int64Value decodes an integer number (null is 0).
func (s *scanner) int64Value() (int64, error) {
	if s.null() {
		return 0, nil
	}
	raw, err := s.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("integer %q: %w", raw, err)
	}
	return n, nil
}

func (s *scanner) boolValue() (bool, error) {
	switch {
	case s.null():
		return false, nil
	case s.peek() == 't' && s.literal("true"):
		return true, nil
	case s.peek() == 'f' && s.literal("false"):
		return false, nil
	}
	return false, s.fail("want a boolean")
}

// levels decodes an array of {price, size} (null is none), and the same
// levels in Fixed units (appended to fx).
func (s *scanner) levels(fx []Level) ([]exchange.PriceLevel, []Level, error) {
	if s.null() {
		return nil, fx, nil
	}
	if err := s.expect('['); err != nil {
		return nil, fx, err
	}
	out := make([]exchange.PriceLevel, 0, 32)
	if s.peek() == ']' {
		s.i++
		return out, fx, nil
	}
	for {
		var l exchange.PriceLevel
		var f Level
		if !s.null() {
			err := s.object(func(key []byte) error {
				var err error
				switch string(key) {
				case "price":
					l.Price, f.Price, err = s.decimalFixed()
				case "size":
					l.Size, f.Size, err = s.decimalFixed()
				default:
					err = s.unknown(key, 1, "price", "size")
				}
				return err
			})
			if err != nil {
				return nil, fx, err
			}
		}
		out = append(out, l)
		fx = append(fx, f)
		if s.peek() == ',' {
			s.i++
			continue
		}
		return out, fx, s.expect(']')
	}
}

// decodeLine fills w from one event line; cache may be nil.
func decodeLine(line []byte, w *wireLine, cache *decimalCache) error {
	s := scanner{b: line, cache: cache}
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "kind":
			w.Kind, err = s.optStr()
		case "token":
			w.Token, err = s.optStr()
		case "market":
			w.Market, err = s.optStr()
		case "ts_ms":
			w.TsMs, err = s.int64Value()
		case "recv_ns":
			w.RecvNs, err = s.int64Value()
		case "bids":
			w.Bids, w.fxBids, err = s.levels(w.fxBids[:0])
		case "asks":
			w.Asks, w.fxAsks, err = s.levels(w.fxAsks[:0])
		case "tick":
			w.Tick, err = s.decimal()
		case "min_size":
			w.MinSize, err = s.decimal()
		case "price":
			w.Price, err = s.decimal()
		case "size":
			w.Size, err = s.decimal()
		case "taker":
			var t string
			t, err = s.optStr()
			w.Taker = exchange.Side(t)
		case "end_date":
			w.EndDate, err = s.optStr()
		case "resolved":
			w.Resolved, err = s.boolValue()
		case "payout":
			w.Payout, err = s.decimal()
		case "reward_max_spread":
			w.RewardMaxSpread, err = s.decimal()
		case "reward_min_size":
			w.RewardMinSize, err = s.decimal()
		case "reward_daily_rate":
			w.RewardDailyRate, err = s.decimal()
		case "seconds_delay":
			w.SecondsDelay, err = s.int64Value()
		case "neg_risk":
			w.NegRisk, err = s.boolValue()
		case "question":
			w.Question, err = s.optStr()
		case "slug":
			w.Slug, err = s.optStr()
		default:
			err = s.unknown(key, 0, "kind", "token", "market", "ts_ms", "recv_ns", "bids", "asks",
				"tick", "min_size", "price", "size", "taker", "end_date", "resolved", "payout",
				"reward_max_spread", "reward_min_size", "reward_daily_rate", "seconds_delay", "neg_risk", "question", "slug")
		}
		return err
	})
	if err != nil {
		return err
	}
	if s.peek() != 0 {
		return s.fail("data after the object")
	}
	return nil
}

// parseEndDate parses the meta end_date field.
func parseEndDate(v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, invalid("end_date: %v", err)
	}
	return t.UTC(), nil
}
