package configs

import (
	"fmt"
	"strings"
	"time"
)

// Duration is a time.Duration written as a Go duration string ("250ms",
// "1h30m") in TOML, the environment and flags.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d like time.Duration without its zero minutes and
// seconds: "24h", "10m", "1h30m", "250ms" (time.Duration writes "24h0m0s").
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what
// time.ParseDuration accepts.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %s (want e.g. \"250ms\", \"10s\", \"1h30m\")", quote(string(b)))
	}
	*d = Duration(v)
	return nil
}
