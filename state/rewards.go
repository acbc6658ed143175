package state

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// The reward records: the liquidity rewards the daemon estimates it earned
// (loop.MarketRewards; the exchange publishes no earnings), summed by the
// hour and by market, so that mmbot statement can report them for a
// period. One value per hour in the meta bucket, under the key
// "rewards/" followed by the hour's Unix seconds (8 bytes, big endian),
// holding JSON {"markets": {condition id: decimal string}}. The daemon adds
// what it earned about once a minute and when it stops; the records are
// small (one per hour) and are not pruned.
var keyRewardsPrefix = []byte("rewards/")

// RewardHour is what the daemon estimates it earned in one hour, by market.
type RewardHour struct {
	Hour    time.Time                  // the hour's start, UTC
	Markets map[string]decimal.Decimal // condition id → collateral earned
}

type rewardRecord struct {
	Markets map[string]decimal.Decimal `json:"markets"`
}

func rewardKey(hour time.Time) []byte {
	k := append([]byte(nil), keyRewardsPrefix...)
	return binary.BigEndian.AppendUint64(k, uint64(hour.Unix()))
}

// AddRewards adds the rewards earned by market (positive amounts; others
// are refused) to the record of the hour holding at.
func (tx *Tx) AddRewards(at time.Time, earned map[string]decimal.Decimal) error {
	if err := tx.writable(); err != nil {
		return err
	}
	if len(earned) == 0 {
		return nil
	}
	if at.Unix() < 0 {
		return fmt.Errorf("rewards at %s: %w", at, ErrInvalid)
	}
	for m, v := range earned {
		if m == "" || !v.IsPositive() {
			return fmt.Errorf("rewards of market %q: %s: %w", m, v, ErrInvalid)
		}
	}
	b := tx.bucket(bucketMeta)
	if b == nil {
		return fmt.Errorf("rewards: the journal is not initialised: %w", ErrInvalid)
	}
	k := rewardKey(at.UTC().Truncate(time.Hour))
	rec := rewardRecord{Markets: map[string]decimal.Decimal{}}
	if raw := b.Get(k); raw != nil {
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("rewards record: %w: %w", ErrInvalid, err)
		}
		if rec.Markets == nil {
			rec.Markets = map[string]decimal.Decimal{}
		}
	}
	for m, v := range earned {
		rec.Markets[m] = rec.Markets[m].Add(v)
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return b.Put(k, raw)
}

// Rewards returns the reward records of the hours that overlap [from, to)
// (a zero from: since the first; a zero to: to the last), oldest first.
// An hour counts whole: the records know no finer time.
func (tx *Tx) Rewards(from, to time.Time) ([]RewardHour, error) {
	b := tx.bucket(bucketMeta)
	if b == nil {
		return nil, nil
	}
	var out []RewardHour
	c := b.Cursor()
	start := keyRewardsPrefix
	if !from.IsZero() && from.Unix() > 0 {
		start = rewardKey(from.UTC().Truncate(time.Hour)) // the hour that holds from
	}
	for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, keyRewardsPrefix); k, v = c.Next() {
		if len(k) != len(keyRewardsPrefix)+8 {
			return nil, fmt.Errorf("rewards record key %q: %w", k, ErrInvalid)
		}
		hour := time.Unix(int64(binary.BigEndian.Uint64(k[len(keyRewardsPrefix):])), 0).UTC()
		if !to.IsZero() && !hour.Before(to) {
			break
		}
		var rec rewardRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return nil, fmt.Errorf("rewards record of %s: %w: %w", hour.Format(time.RFC3339), ErrInvalid, err)
		}
		out = append(out, RewardHour{Hour: hour, Markets: rec.Markets})
	}
	return out, nil
}

// AddRewards adds earned to the hour of at in its own transaction.
func (s *Store) AddRewards(at time.Time, earned map[string]decimal.Decimal) error {
	return s.Update(func(tx *Tx) error { return tx.AddRewards(at, earned) })
}

// Rewards reads the reward records of the hours that overlap [from, to).
func (s *Store) Rewards(from, to time.Time) (out []RewardHour, err error) {
	err = s.View(func(tx *Tx) error { out, err = tx.Rewards(from, to); return err })
	return out, err
}

// SumRewards sums reward records: the total and the amount by market, with
// the markets sorted.
func SumRewards(hours []RewardHour) (total decimal.Decimal, byMarket map[string]decimal.Decimal, markets []string) {
	byMarket = map[string]decimal.Decimal{}
	for _, h := range hours {
		for m, v := range h.Markets {
			byMarket[m] = byMarket[m].Add(v)
			total = total.Add(v)
		}
	}
	for m := range byMarket {
		markets = append(markets, m)
	}
	sort.Strings(markets)
	return total, byMarket, markets
}
