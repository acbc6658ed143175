package main

import (
	"strings"
	"time"
)

// span formats a span shown to people in whole seconds without zero units:
// "12s", "1m", "1m5s", "2h", "1h0m5s" (not "1m0s" or "2h0m0s").
func span(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
