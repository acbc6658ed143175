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
	}{
		{"250ms", 250 * time.Millisecond, false},
		{"1h30m", 90 * time.Minute, false},
		{"0s", 0, false},
		{"-1s", -time.Second, false},
		{"10", 0, true},
		{"ten seconds", 0, true},
		{"", 0, true},
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
		if d.String() != tc.want.String() {
			t.Errorf("String %s", d)
		}
	}
}
