package configs

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    time.Duration
		wantErr bool
		str     string // String: the shortest form
	}{
		{"250ms", 250 * time.Millisecond, false, "250ms"},
		{"1h30m", 90 * time.Minute, false, "1h30m"},
		{"0s", 0, false, "0s"},
		{"-1s", -time.Second, false, "-1s"},
		{"24h", 24 * time.Hour, false, "24h"},
		{"10m", 10 * time.Minute, false, "10m"},
		{"1h0m5s", time.Hour + 5*time.Second, false, "1h0m5s"},
		{"2m30s", 150 * time.Second, false, "2m30s"},
		{"1m0.5s", time.Minute + 500*time.Millisecond, false, "1m0.5s"},
		{"10", 0, true, ""},
		{"ten seconds", 0, true, ""},
		{"", 0, true, ""},
	} {
		var d Duration
		err := d.UnmarshalText([]byte(tc.in))
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: err = %v", tc.in, err)
			continue
		}
		if err != nil {
			continue
		}
		if d.Std() != tc.want {
			t.Errorf("%q = %v, want %v", tc.in, d.Std(), tc.want)
		}
		b, _ := d.MarshalText()
		var back Duration
		if err := back.UnmarshalText(b); err != nil || back != d {
			t.Errorf("round trip of %q via %q: %v %v", tc.in, b, back, err)
		}
		if d.String() != tc.str {
			t.Errorf("%q: String %q, want %q", tc.in, d.String(), tc.str)
		}
	}
}
