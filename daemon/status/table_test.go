package status

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestSecondsForPeople(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{34177183875 * time.Nanosecond, "34s"},
		{60*time.Second + 400*time.Millisecond, "1m"},
		{65 * time.Second, "1m5s"},
		{2 * time.Hour, "2h"},
		{time.Hour + 5*time.Second, "1h0m5s"},
		{300 * time.Millisecond, "0s"},
	} {
		if got := Span(c.in); got != c.want {
			t.Errorf("Span(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The status table shows the uptime in whole seconds and book ages in
// milliseconds, never a raw duration.
func TestStatusTableRoundsDurations(t *testing.T) {
	d := &Status{Time: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), UptimeSeconds: 60.177183875, Mode: "live", Ready: true,
		Totals: Totals{LiveOrders: 2},
		Markets: []Market{{ConditionID: "0x5f0c3c0b0d3b7c7a2f8e1b7a0f58b1d7e2c3f4a5b6c7d8e9f0a1b2c3d4e5f6a7", Slug: "rain",
			OpenOrders: 2, BookAgeSeconds: 1.234567891}}}
	var b bytes.Buffer
	if err := d.WriteTable(&b, time.UTC); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"12:00:00  up 1m  live", " 1.235s"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "177183875") || strings.Contains(out, "1m0s") {
		t.Errorf("an unrounded duration:\n%s", out)
	}
}
