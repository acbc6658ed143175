package loop

import (
	"testing"
	"time"
)

func TestParseBookTime(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := time.Date(2024, 9, 11, 8, 25, 2, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"1726043102000", at},
		{"1726043102", at},
		{"2024-09-11T08:25:02Z", at},
		{"2024-09-11T08:25:02.000Z", at},
		{"", now}, {"0", now}, {"soon", now}, {"-5", now},
	} {
		if got := parseBookTime(tc.in, now); !got.Equal(tc.want) {
			t.Errorf("parseBookTime(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
