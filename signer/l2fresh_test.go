package signer

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestCheckFresh(t *testing.T) {
	now := time.Unix(1750000000, 0)
	half := time.Unix(1750000000, 500_000_000)
	cases := []struct {
		name string
		ts   int64
		now  time.Time
		want string // "" fresh; else a part of the error
	}{
		{"now", 1750000000, now, ""},
		{"edge ahead", 1750000030, now, ""},
		{"edge behind", 1749999970, now, ""},
		{"31 s ahead", 1750000031, now, "SVC_TIMESTAMP 1750000031 is 31s ahead of the server's clock, window 30s"},
		{"31 s behind", 1749999969, now, "SVC_TIMESTAMP 1749999969 is 31s behind the server's clock, window 30s"},
		{"ahead by a fraction", 1750000031, half, "is 30.5s ahead of"},
		{"behind by a fraction", 1749999969, half, "is 31.5s behind"},
		{"milliseconds", 1750000000123, now, "SVC_TIMESTAMP 1750000000123 is not in seconds (it reads as Unix milliseconds)"},
		{"milliseconds, stale too", 1740000000000, now, "is 1738250000000s ahead of"},
		{"max int64", math.MaxInt64, now, "is 9223372035104775807s ahead of"},
		{"min int64", math.MinInt64, now, "is 9223372038604775808s behind"},
		{"zero", 0, now, "is 486111h6m40s behind"},
		{"a day ahead", 1750086400, now, "is 24h0m0s ahead of"},
	}
	for _, c := range cases {
		err := checkFresh(c.ts, c.now, DefaultFreshness)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want fresh", c.name, err)
		case c.want != "" && (err == nil || !errors.Is(err, ErrStaleTimestamp) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want ErrStaleTimestamp saying %q", c.name, err, c.want)
		}
	}
}
