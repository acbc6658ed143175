package state

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// Rewards add up by the hour and by market, survive a reopen, and are
// read back for the hours that overlap a period; bad amounts are refused
// and leave the records as they were.
func TestRewardsByHour(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	d := decimal.RequireFromString
	h0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	adds := []struct {
		at     time.Time
		earned map[string]decimal.Decimal
	}{
		{h0.Add(time.Minute), map[string]decimal.Decimal{"0xa": d("0.125"), "0xb": d("1")}},
		{h0.Add(59 * time.Minute), map[string]decimal.Decimal{"0xa": d("0.375")}},
		{h0.Add(61 * time.Minute), map[string]decimal.Decimal{"0xa": d("2")}},
		{h0.Add(3*time.Hour + time.Second), map[string]decimal.Decimal{"0xc": d("0.000001")}},
		{h0, nil}, // nothing to add
	}
	for _, a := range adds {
		if err := s.AddRewards(a.at, a.earned); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []map[string]decimal.Decimal{{"0xa": d("-1")}, {"0xa": decimal.Zero}, {"": d("1")}} {
		if err := s.AddRewards(h0, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("AddRewards(%v): %v, want ErrInvalid", bad, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name     string
		from, to time.Time
		total    string
		hours    int
		a        string
	}{
		{"all", time.Time{}, time.Time{}, "3.500001", 3, "2.5"},
		{"the first hour", h0, h0.Add(time.Hour), "1.5", 1, "0.5"},
		{"from within the first hour: it counts whole", h0.Add(time.Minute), h0.Add(24 * time.Hour), "3.500001", 3, "2.5"},
		{"from the second hour", h0.Add(time.Hour), h0.Add(24 * time.Hour), "2.000001", 2, "2"},
		{"up to the last hour's start: excluded", h0, h0.Add(3 * time.Hour), "3.5", 2, "2.5"},
		{"before any", h0.Add(-48 * time.Hour), h0.Add(-24 * time.Hour), "0", 0, "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hours, err := s.Rewards(c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			total, by, _ := SumRewards(hours)
			if len(hours) != c.hours || !total.Equal(d(c.total)) || !by["0xa"].Equal(d(c.a)) {
				t.Fatalf("%d hours, total %s, 0xa %s; want %d, %s, %s", len(hours), total, by["0xa"], c.hours, c.total, c.a)
			}
		})
	}
}
